/* A running program holding a file, as ComfyUI's python.exe holds torch's DLLs or an antivirus
 * scanner holds a file it reads:
 *   holder load FILE READY STOP   loads FILE as a DLL
 *   holder open FILE READY STOP   opens FILE for reading without letting it be moved or deleted
 * makes the file READY once it holds FILE, and holds it until the file STOP appears or, with a
 * fifth argument, that many milliseconds have passed (at most two minutes either way). */
#include <windows.h>

int wmain(int argc, wchar_t** argv) {
    if (argc < 5) return 2;
    if (lstrcmpW(argv[1], L"load") == 0) {
        if (!LoadLibraryW(argv[2])) return 1;
    } else if (CreateFileW(argv[2], GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL) == INVALID_HANDLE_VALUE) {
        return 1;
    }
    CloseHandle(CreateFileW(argv[3], GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL));
    const int ticks = argc > 5 ? _wtoi(argv[5]) / 100 : 1200;
    for (int i = 0; i < ticks && GetFileAttributesW(argv[4]) == INVALID_FILE_ATTRIBUTES; ++i) Sleep(100);
    return 0;
}
