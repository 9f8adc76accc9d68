/* A stand-in libnvidia-ml.so.1 for tests: the NVML entry points envfix uses, answering from the
 * same environment variables as the stand-in libcuda (README.md). Like the real NVML it lists
 * every GPU whatever CUDA_VISIBLE_DEVICES says. Values as in nvml.h (NVML_API_VERSION 12/13). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "standin_config.h"

#define API __attribute__((visibility("default")))

typedef int nvmlReturn_t;
typedef struct nvml_device* nvmlDevice_t;

enum {
    SUCCESS = 0, UNINITIALIZED = 1, INVALID_ARGUMENT = 2, NOT_SUPPORTED = 3, INSUFFICIENT_SIZE = 7,
    UNKNOWN = 999,
};

static standin_machine g_machine;
static int g_initialized;

static nvmlReturn_t check(const char* entry) {
    standin_log(entry, NULL);
    int code = standin_fail_code(entry);
    if (code) return code;
    return g_initialized ? SUCCESS : UNINITIALIZED;
}

static const standin_gpu* gpu_of(nvmlDevice_t dev) {
    uintptr_t i = (uintptr_t)dev;
    return i >= 1 && i <= (uintptr_t)g_machine.gpu_count ? &g_machine.gpus[i - 1] : NULL;
}

static nvmlReturn_t copy_out(char* dst, unsigned len, const char* s) {
    if (!dst) return INVALID_ARGUMENT;
    return standin_copy(dst, len, s) ? SUCCESS : INSUFFICIENT_SIZE;
}

API nvmlReturn_t nvmlInit_v2(void) {
    standin_log("nvmlInit_v2", NULL);
    int code = standin_fail_code("nvmlInit_v2");
    if (code) return code;
    standin_read_machine(&g_machine);
    ++g_initialized;
    return SUCCESS;
}

API nvmlReturn_t nvmlShutdown(void) {
    nvmlReturn_t r = check("nvmlShutdown");
    if (r) return r;
    --g_initialized;
    return SUCCESS;
}

API nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned len) {
    nvmlReturn_t r = check("nvmlSystemGetDriverVersion");
    if (r) return r;
    if (!g_machine.driver_version[0]) return UNKNOWN;
    return copy_out(version, len, g_machine.driver_version);
}

API nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* version) {
    nvmlReturn_t r = check("nvmlSystemGetCudaDriverVersion_v2");
    if (r) return r;
    if (!version) return INVALID_ARGUMENT;
    *version = g_machine.cuda_version;
    return SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned* count) {
    nvmlReturn_t r = check("nvmlDeviceGetCount_v2");
    if (r) return r;
    if (!count) return INVALID_ARGUMENT;
    *count = (unsigned)g_machine.gpu_count;
    return SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned index, nvmlDevice_t* dev) {
    nvmlReturn_t r = check("nvmlDeviceGetHandleByIndex_v2");
    if (r) return r;
    if (!dev || index >= (unsigned)g_machine.gpu_count) return INVALID_ARGUMENT;
    *dev = (nvmlDevice_t)(uintptr_t)(index + 1);
    return SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t dev, char* name, unsigned len) {
    nvmlReturn_t r = check("nvmlDeviceGetName");
    if (r) return r;
    const standin_gpu* g = gpu_of(dev);
    return g ? copy_out(name, len, g->name) : INVALID_ARGUMENT;
}

API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t dev, char* uuid, unsigned len) {
    nvmlReturn_t r = check("nvmlDeviceGetUUID");
    if (r) return r;
    const standin_gpu* g = gpu_of(dev);
    return g ? copy_out(uuid, len, g->uuid_text) : INVALID_ARGUMENT;
}

typedef struct {
    char busIdLegacy[16];
    unsigned domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;

API nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t dev, nvmlPciInfo_t* pci) {
    nvmlReturn_t r = check("nvmlDeviceGetPciInfo_v3");
    if (r) return r;
    const standin_gpu* g = gpu_of(dev);
    if (!g || !pci) return INVALID_ARGUMENT;
    memset(pci, 0, sizeof *pci);
    sscanf(g->bus_id, "%x:%x:%x", &pci->domain, &pci->bus, &pci->device);
    /* NVML's forms: 8-digit domain, upper-case hex */
    snprintf(pci->busId, sizeof pci->busId, "%08X:%02X:%02X.0", pci->domain, pci->bus, pci->device);
    snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.0", pci->domain, pci->bus, pci->device);
    pci->pciDeviceId = 0x10de;
    return SUCCESS;
}

/* Windows only: a Linux driver answers NOT_SUPPORTED, as a GPU without `model=` here does. The
 * _v2 name is what nvml.h's nvmlDeviceGetDriverModel expands to since NVML 12.5. */
static nvmlReturn_t driver_model(const char* entry, nvmlDevice_t dev, int* current, int* pending) {
    nvmlReturn_t r = check(entry);
    if (r) return r;
    const standin_gpu* g = gpu_of(dev);
    if (!g || !current) return INVALID_ARGUMENT;
    if (g->driver_model < 0) return NOT_SUPPORTED;
    *current = g->driver_model;
    if (pending) *pending = g->driver_model;
    return SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetDriverModel_v2(nvmlDevice_t dev, int* current, int* pending) {
    return driver_model("nvmlDeviceGetDriverModel_v2", dev, current, pending);
}

API nvmlReturn_t nvmlDeviceGetDriverModel(nvmlDevice_t dev, int* current, int* pending) {
    return driver_model("nvmlDeviceGetDriverModel", dev, current, pending);
}

typedef struct {
    unsigned long long total, free, used;
} nvmlMemory_t;

API nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t dev, nvmlMemory_t* mem) {
    nvmlReturn_t r = check("nvmlDeviceGetMemoryInfo");
    if (r) return r;
    const standin_gpu* g = gpu_of(dev);
    if (!g || !mem) return INVALID_ARGUMENT;
    mem->total = g->memory_bytes;
    mem->used = 0;
    mem->free = g->memory_bytes;
    return SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t dev, int* major, int* minor) {
    nvmlReturn_t r = check("nvmlDeviceGetCudaComputeCapability");
    if (r) return r;
    const standin_gpu* g = gpu_of(dev);
    if (!g || !major || !minor) return INVALID_ARGUMENT;
    *major = g->cc_major;
    *minor = g->cc_minor;
    return SUCCESS;
}

API const char* nvmlErrorString(nvmlReturn_t r) {
    switch (r) {
        case 0: return "Success";
        case 1: return "Uninitialized";
        case 2: return "Invalid Argument";
        case 3: return "Not Supported";
        case 7: return "Insufficient Size";
        case 9: return "Driver Not Loaded";
        case 12: return "NVML Shared Library Not Found";
        case 18: return "Driver/library version mismatch";
        default: return "Unknown Error";
    }
}
