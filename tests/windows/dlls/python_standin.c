/* A stand-in python.exe for the Windows tests under Wine (docs/testing.md). No Windows Python can
 * be had on the test machines, so this runs the machine's Linux python3 (ENVFIX_STANDIN_PYTHON, a
 * Windows path such as Z:\usr\bin\python3) on the arguments it was given, with the Lib\site-packages
 * beside it first on the module path, its standard handles passed on, and exits with its exit code.
 * What it stands for: the environment's own interpreter running envfix's framework check against
 * the torch installed there (the tests install tests/verify/fake_torch). Wine starts a Linux
 * program from a Windows one but can neither wait for it nor report its exit code, so the
 * arguments go through a file to tests/windows/standin_python.py (ENVFIX_STANDIN_PYTHON_RUNNER),
 * which runs them and then makes a second file holding the code, which this program waits for;
 * the output comes back in two more files, copied to this program's own handles. The files are
 * made in ENVFIX_STANDIN_PYTHON_TEMP (a Windows path) where it is set, else in the temp folder. */
#include <stdio.h>
#include <windows.h>

typedef char*(CDECL* unix_name_fn)(const WCHAR*);

static char* unix_path(const WCHAR* p) {
    unix_name_fn f = (unix_name_fn)GetProcAddress(GetModuleHandleW(L"kernel32.dll"), "wine_get_unix_file_name");
    return f ? f(p) : NULL;
}

/* `w` as a JSON string in UTF-8. */
/* The file `base``suffix`, if any, copied to `to`, then removed. */
static void relay(const WCHAR* base, const WCHAR* suffix, HANDLE to) {
    WCHAR name[MAX_PATH + 8];
    lstrcpyW(name, base);
    lstrcatW(name, suffix);
    HANDLE f = CreateFileW(name, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
    if (f == INVALID_HANDLE_VALUE) return;
    char buf[65536];
    DWORD got, put;
    while (ReadFile(f, buf, sizeof buf, &got, NULL) && got) WriteFile(to, buf, got, &put, NULL);
    CloseHandle(f);
    DeleteFileW(name);
}

static void put_json(FILE* out, const WCHAR* w) {
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
    char* s = (char*)HeapAlloc(GetProcessHeap(), 0, n);
    WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);
    fputc('"', out);
    for (const unsigned char* c = (const unsigned char*)s; *c; ++c) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(out, "\\u%04x", *c);
        else
            fputc(*c, out);
    }
    fputc('"', out);
    HeapFree(GetProcessHeap(), 0, s);
}

int wmain(int argc, WCHAR** argv) {
    WCHAR python[MAX_PATH], runner[MAX_PATH], site[MAX_PATH], tmp[MAX_PATH], args_file[MAX_PATH], exit_file[MAX_PATH];
    if (!GetEnvironmentVariableW(L"ENVFIX_STANDIN_PYTHON", python, MAX_PATH) ||
        !GetEnvironmentVariableW(L"ENVFIX_STANDIN_PYTHON_RUNNER", runner, MAX_PATH)) {
        fprintf(stderr, "stand-in python.exe: ENVFIX_STANDIN_PYTHON and ENVFIX_STANDIN_PYTHON_RUNNER are not set\n");
        return 9009;
    }
    GetModuleFileNameW(NULL, site, MAX_PATH);
    *wcsrchr(site, L'\\') = 0;
    lstrcatW(site, L"\\Lib\\site-packages");
    /* The two files go where the test says (ENVFIX_STANDIN_PYTHON_TEMP), else in the temp folder. */
    if (!GetEnvironmentVariableW(L"ENVFIX_STANDIN_PYTHON_TEMP", tmp, MAX_PATH)) GetTempPathW(MAX_PATH, tmp);
    CreateDirectoryW(tmp, NULL);
    FILE* out = NULL;
    if (!GetTempFileNameW(tmp, L"spa", 0, args_file) || !(out = _wfopen(args_file, L"wb"))) {
        fprintf(stderr, "stand-in python.exe: cannot write in %ls\n", tmp);
        return 9009;
    }
    fprintf(out, "{\"site\": ");
    put_json(out, site);
    fprintf(out, ", \"args\": [");
    for (int i = 1; i < argc; ++i) {
        if (i > 1) fprintf(out, ", ");
        put_json(out, argv[i]);
    }
    fprintf(out, "]}");
    fclose(out);
    lstrcpyW(exit_file, args_file);
    lstrcatW(exit_file, L".exit"); /* made by the runner once the arguments have run */

    char *runner_u = unix_path(runner), *args_u = unix_path(args_file), *exit_u = unix_path(exit_file);
    static WCHAR cmd[4 * MAX_PATH];
    swprintf(cmd, sizeof cmd / sizeof *cmd, L"python3 \"%hs\" \"%hs\" \"%hs\"", runner_u, args_u, exit_u);
    STARTUPINFOW si = {sizeof si};
    PROCESS_INFORMATION pi;
    if (!CreateProcessW(python, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi)) {
        fprintf(stderr, "stand-in python.exe: cannot start %ls (%lu)\n", python, GetLastError());
        return 9009;
    }
    CloseHandle(pi.hThread);
    CloseHandle(pi.hProcess);
    for (int i = 0; i < 60000 && GetFileAttributesW(exit_file) == INVALID_FILE_ATTRIBUTES; ++i) Sleep(10);
    relay(exit_file, L".out", GetStdHandle(STD_OUTPUT_HANDLE));
    relay(exit_file, L".err", GetStdHandle(STD_ERROR_HANDLE));
    int code = 1;
    FILE* in = _wfopen(exit_file, L"rb");
    if (!in || fscanf(in, "%d", &code) != 1) fprintf(stderr, "stand-in python.exe: no exit code from the runner\n");
    if (in) fclose(in);
    DeleteFileW(args_file);
    DeleteFileW(exit_file);
    return code;
}
