/* A stand-in libcuda.so.1 for tests on machines without an NVIDIA GPU: the Driver API entry
 * points envfix uses, answering from environment variables (README.md). It behaves like the real
 * driver where envfix depends on it: cuDriverGetVersion works before cuInit, other calls before a
 * successful cuInit return CUDA_ERROR_NOT_INITIALIZED, CUDA_VISIBLE_DEVICES filters and renumbers
 * the GPUs, cuInit returns CUDA_ERROR_NO_DEVICE when none is left, the PTX JIT refuses a PTX ISA
 * newer than the driver's CUDA version supports (222) and a target newer than the GPU (209), and
 * the kernels envfix launches are really computed on the host so their results can be checked.
 * Types and values as in CUDA 13.0's cuda.h. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "standin_config.h"

#define API __attribute__((visibility("default")))

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct standin_ctx* CUcontext;
typedef struct standin_module* CUmodule;
typedef struct standin_function* CUfunction;
typedef struct standin_event* CUevent;
typedef void* CUstream;
typedef struct { char bytes[16]; } CUuuid;
typedef int CUjit_option;

enum {
    SUCCESS = 0, INVALID_VALUE = 1, OUT_OF_MEMORY = 2, NOT_INITIALIZED = 3, NO_DEVICE = 100, INVALID_DEVICE = 101,
    INVALID_CONTEXT = 201, NO_BINARY_FOR_GPU = 209, INVALID_PTX = 218, UNSUPPORTED_PTX_VERSION = 222,
    INVALID_HANDLE = 400, NOT_FOUND = 500,
};

static standin_machine g_machine;
static int g_visible[STANDIN_MAX_GPUS]; /* CUDA ordinal -> index in g_machine.gpus */
static int g_visible_count;
static int g_init_result = NOT_INITIALIZED;
static CUcontext g_current;

/* ---- CUDA_VISIBLE_DEVICES, as the driver reads it: indices or UUID prefixes, comma separated;
 * the list ends at the first entry that names no GPU (or one already listed). */
static int find_gpu(const char* token) {
    char* end = NULL;
    long idx = strtol(token, &end, 10);
    if (end != token && *end == '\0') return idx >= 0 && idx < g_machine.gpu_count ? (int)idx : -1;
    if (strncmp(token, "GPU-", 4) != 0) return -1;
    int found = -1;
    for (int i = 0; i < g_machine.gpu_count; ++i) {
        if (strncmp(g_machine.gpus[i].uuid_text, token, strlen(token)) != 0) continue;
        if (found >= 0) return -1; /* ambiguous prefix */
        found = i;
    }
    return found;
}

static void apply_visible_devices(void) {
    const char* cvd = getenv("CUDA_VISIBLE_DEVICES");
    g_visible_count = 0;
    /* GPUs the driver cannot run (field cuda=0) are not CUDA devices at all, not even for the
     * numbering CUDA_VISIBLE_DEVICES refers to. */
    int usable = 0;
    for (int i = 0; i < g_machine.gpu_count; ++i)
        if (g_machine.gpus[i].cuda) g_machine.gpus[usable++] = g_machine.gpus[i];
    g_machine.gpu_count = usable;
    if (!cvd) {
        for (int i = 0; i < g_machine.gpu_count; ++i) g_visible[g_visible_count++] = i;
        return;
    }
    char* copy = strdup(cvd);
    char* save = NULL;
    for (char* tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ') ++tok;
        size_t len = strlen(tok);
        while (len && tok[len - 1] == ' ') tok[--len] = '\0';
        int gpu = find_gpu(tok);
        int seen = 0;
        for (int i = 0; i < g_visible_count; ++i) seen |= g_visible[i] == gpu;
        if (gpu < 0 || seen) break;
        g_visible[g_visible_count++] = gpu;
    }
    free(copy);
}

static CUresult check(const char* entry) {
    standin_log(entry, NULL);
    int code = standin_fail_code(entry);
    if (code) return code;
    return g_init_result;
}

static const standin_gpu* gpu_of(CUdevice dev) {
    return dev >= 0 && dev < g_visible_count ? &g_machine.gpus[g_visible[dev]] : NULL;
}

/* ---- probe entry points ---- */

API CUresult cuInit(unsigned int flags) {
    char detail[16];
    snprintf(detail, sizeof detail, "%u", flags);
    standin_log("cuInit", detail);
    if (flags != 0) return INVALID_VALUE;
    standin_read_machine(&g_machine);
    apply_visible_devices();
    int code = standin_fail_code("cuInit");
    if (!code && g_visible_count == 0) code = NO_DEVICE;
    g_init_result = code;
    return code;
}

API CUresult cuDriverGetVersion(int* version) {
    standin_log("cuDriverGetVersion", NULL);
    if (standin_fail_code("cuDriverGetVersion")) return standin_fail_code("cuDriverGetVersion");
    if (!version) return INVALID_VALUE;
    const char* cuda = getenv("ENVFIX_STANDIN_CUDA");
    *version = cuda && *cuda ? atoi(cuda) : 13000;
    return SUCCESS;
}

API CUresult cuDeviceGetCount(int* count) {
    CUresult r = check("cuDeviceGetCount");
    if (r) return r;
    if (!count) return INVALID_VALUE;
    *count = g_visible_count;
    return SUCCESS;
}

API CUresult cuDeviceGet(CUdevice* dev, int ordinal) {
    CUresult r = check("cuDeviceGet");
    if (r) return r;
    if (!dev) return INVALID_VALUE;
    if (!gpu_of(ordinal)) return INVALID_DEVICE;
    *dev = ordinal;
    return SUCCESS;
}

/* cuDeviceGetName, cuDeviceGetPCIBusId: a string of the GPU, truncated to fit as the driver does. */
static CUresult device_text(const char* entry, char* out, int len, CUdevice dev, int bus) {
    CUresult r = check(entry);
    if (r) return r;
    const standin_gpu* g = gpu_of(dev);
    if (!g) return INVALID_DEVICE;
    if (!out || len <= 0) return INVALID_VALUE;
    standin_copy(out, (size_t)len, bus ? g->bus_id : g->name);
    return SUCCESS;
}

API CUresult cuDeviceGetName(char* name, int len, CUdevice dev) { return device_text("cuDeviceGetName", name, len, dev, 0); }

static int pci_part(const char* bus, int which) {
    unsigned domain = 0, b = 0, d = 0;
    sscanf(bus, "%x:%x:%x", &domain, &b, &d);
    return (int)(which == 0 ? domain : which == 1 ? b : d);
}

API CUresult cuDeviceGetAttribute(int* value, int attrib, CUdevice dev) {
    CUresult r = check("cuDeviceGetAttribute");
    if (r) return r;
    const standin_gpu* g = gpu_of(dev);
    if (!g) return INVALID_DEVICE;
    if (!value) return INVALID_VALUE;
    switch (attrib) {
        case 16: *value = g->sm_count; return SUCCESS;        /* MULTIPROCESSOR_COUNT */
        case 18: *value = g->integrated; return SUCCESS;      /* INTEGRATED */
        case 33: *value = pci_part(g->bus_id, 1); return SUCCESS;  /* PCI_BUS_ID */
        case 34: *value = pci_part(g->bus_id, 2); return SUCCESS;  /* PCI_DEVICE_ID */
        case 50: *value = pci_part(g->bus_id, 0); return SUCCESS;  /* PCI_DOMAIN_ID */
        case 75: *value = g->cc_major; return SUCCESS;        /* COMPUTE_CAPABILITY_MAJOR */
        case 76: *value = g->cc_minor; return SUCCESS;        /* COMPUTE_CAPABILITY_MINOR */
        default: return INVALID_VALUE;                        /* not modelled: extend when needed */
    }
}

API CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice dev) {
    CUresult r = check("cuDeviceTotalMem_v2");
    if (r) return r;
    const standin_gpu* g = gpu_of(dev);
    if (!g) return INVALID_DEVICE;
    if (!bytes) return INVALID_VALUE;
    *bytes = (size_t)(g->cuda_memory_bytes ? g->cuda_memory_bytes : g->memory_bytes);
    return SUCCESS;
}

API CUresult cuDeviceGetPCIBusId(char* bus, int len, CUdevice dev) {
    return device_text("cuDeviceGetPCIBusId", bus, len, dev, 1);
}

static CUresult get_uuid(const char* entry, CUuuid* uuid, CUdevice dev) {
    CUresult r = check(entry);
    if (r) return r;
    const standin_gpu* g = gpu_of(dev);
    if (!g) return INVALID_DEVICE;
    if (!uuid) return INVALID_VALUE;
    memcpy(uuid->bytes, g->uuid, 16);
    return SUCCESS;
}
API CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice dev) { return get_uuid("cuDeviceGetUuid", uuid, dev); }
API CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice dev) { return get_uuid("cuDeviceGetUuid_v2", uuid, dev); }

static const struct { int code; const char* name; const char* text; } k_errors[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {34, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE", "CUDA-capable device(s) is/are busy or unavailable"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device"},
    {214, "CUDA_ERROR_ECC_UNCORRECTABLE", "uncorrectable ECC error encountered"},
    {218, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND", "PTX JIT compiler library not found"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "the provided PTX was compiled with an unsupported toolchain."},
    {223, "CUDA_ERROR_JIT_COMPILATION_DISABLED", "PTX JIT compilation was disabled"},
    {400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {702, "CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated"},
    {719, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {802, "CUDA_ERROR_SYSTEM_NOT_READY", "system not yet initialized"},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "system has unsupported display driver / cuda driver combination"},
    {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "forward compatibility was attempted on non supported HW"},
    {999, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

static CUresult error_lookup(CUresult error, const char** str, int text) {
    standin_log(text ? "cuGetErrorString" : "cuGetErrorName", NULL);
    if (!str) return INVALID_VALUE;
    for (size_t i = 0; i < sizeof k_errors / sizeof k_errors[0]; ++i)
        if (k_errors[i].code == error) {
            *str = text ? k_errors[i].text : k_errors[i].name;
            return SUCCESS;
        }
    *str = NULL;
    return INVALID_VALUE;
}
API CUresult cuGetErrorName(CUresult error, const char** str) { return error_lookup(error, str, 0); }
API CUresult cuGetErrorString(CUresult error, const char** str) { return error_lookup(error, str, 1); }

/* ---- contexts: one primary context per GPU ---- */

struct standin_ctx {
    int device;
    int refs;
};
static struct standin_ctx g_contexts[STANDIN_MAX_GPUS];

API CUresult cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice dev) {
    CUresult r = check("cuDevicePrimaryCtxRetain");
    if (r) return r;
    if (!gpu_of(dev)) return INVALID_DEVICE;
    if (!ctx) return INVALID_VALUE;
    g_contexts[dev].device = dev;
    ++g_contexts[dev].refs;
    *ctx = &g_contexts[dev];
    return SUCCESS;
}

static CUresult release_primary(const char* entry, CUdevice dev) {
    CUresult r = check(entry);
    if (r) return r;
    if (!gpu_of(dev)) return INVALID_DEVICE;
    if (g_contexts[dev].refs <= 0) return INVALID_CONTEXT;
    if (--g_contexts[dev].refs == 0 && g_current == &g_contexts[dev]) g_current = NULL;
    return SUCCESS;
}
API CUresult cuDevicePrimaryCtxRelease(CUdevice dev) { return release_primary("cuDevicePrimaryCtxRelease", dev); }
API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) { return release_primary("cuDevicePrimaryCtxRelease_v2", dev); }

API CUresult cuCtxSetCurrent(CUcontext ctx) {
    CUresult r = check("cuCtxSetCurrent");
    if (r) return r;
    if (ctx && ctx->refs <= 0) return INVALID_CONTEXT;
    g_current = ctx;
    return SUCCESS;
}

API CUresult cuCtxSynchronize(void) {
    CUresult r = check("cuCtxSynchronize");
    if (r) return r;
    return g_current ? SUCCESS : INVALID_CONTEXT;
}

/* ---- device memory: host memory, bounded by the GPU's size ---- */

typedef struct allocation {
    char* data;
    size_t size;
    int device;
    struct allocation* next;
} allocation;
static allocation* g_allocations;

static size_t allocated_on(int device) {
    size_t total = 0;
    for (allocation* a = g_allocations; a; a = a->next)
        if (a->device == device) total += a->size;
    return total;
}

/* The allocation holding [p, p+n), or NULL. */
static allocation* find_range(CUdeviceptr p, size_t n) {
    for (allocation* a = g_allocations; a; a = a->next) {
        uintptr_t base = (uintptr_t)a->data;
        if (p >= base && p + n <= base + a->size) return a;
    }
    return NULL;
}

API CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t bytes) {
    CUresult r = check("cuMemAlloc_v2");
    if (r) return r;
    if (!g_current) return INVALID_CONTEXT;
    if (!p || bytes == 0) return INVALID_VALUE;
    const standin_gpu* g = gpu_of(g_current->device);
    if (allocated_on(g_current->device) + bytes > g->memory_bytes) return OUT_OF_MEMORY;
    allocation* a = calloc(1, sizeof *a);
    a->data = malloc(bytes);
    if (!a->data) {
        free(a);
        return OUT_OF_MEMORY;
    }
    a->size = bytes;
    a->device = g_current->device;
    a->next = g_allocations;
    g_allocations = a;
    *p = (CUdeviceptr)(uintptr_t)a->data;
    return SUCCESS;
}

API CUresult cuMemFree_v2(CUdeviceptr p) {
    CUresult r = check("cuMemFree_v2");
    if (r) return r;
    for (allocation** link = &g_allocations; *link; link = &(*link)->next) {
        if ((uintptr_t)(*link)->data != p) continue;
        allocation* a = *link;
        *link = a->next;
        free(a->data);
        free(a);
        return SUCCESS;
    }
    return INVALID_VALUE;
}

API CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t bytes) {
    CUresult r = check("cuMemcpyHtoD_v2");
    if (r) return r;
    if (!find_range(dst, bytes) || !src) return INVALID_VALUE;
    memcpy((void*)(uintptr_t)dst, src, bytes);
    return SUCCESS;
}

API CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t bytes) {
    CUresult r = check("cuMemcpyDtoH_v2");
    if (r) return r;
    if (!find_range(src, bytes) || !dst) return INVALID_VALUE;
    memcpy(dst, (const void*)(uintptr_t)src, bytes);
    return SUCCESS;
}

/* ---- modules: the PTX is read for its .version, .target and .entry names ---- */

#define MAX_ENTRIES 16
struct standin_function {
    char name[64];
};
struct standin_module {
    struct standin_function functions[MAX_ENTRIES];
    int count;
};

/* The newest PTX ISA a driver of this CUDA version JITs (CUDA 11.0 -> 7.0 ... 13.0 -> 9.0). */
static int max_ptx_isa(int cuda) {
    int major = cuda / 1000, minor = (cuda % 1000) / 10;
    if (major >= 13) return 90 + minor;
    if (major == 12) return minor >= 9 ? 88 : minor >= 8 ? 87 : 80 + (minor > 5 ? 5 : minor);
    if (major == 11) return 70 + minor;
    if (major == 10) return 63 + minor;
    return 60;
}

static void write_log(void** values, int buffer_at, int size_at, const char* text) {
    if (buffer_at < 0 || size_at < 0) return;
    char* buffer = (char*)values[buffer_at];
    size_t size = (size_t)(uintptr_t)values[size_at];
    if (!buffer || size == 0) return;
    standin_copy(buffer, size, text);
    values[size_at] = (void*)(uintptr_t)(strlen(buffer) + 1);
}

API CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int n, CUjit_option* options,
                                void** values) {
    standin_log("cuModuleLoadDataEx", NULL);
    int fail = standin_fail_code("cuModuleLoadDataEx");
    int info_at = -1, info_size_at = -1, error_at = -1, error_size_at = -1;
    for (unsigned i = 0; options && values && i < n; ++i) {
        if (options[i] == 3) info_at = (int)i;
        if (options[i] == 4) info_size_at = (int)i;
        if (options[i] == 5) error_at = (int)i;
        if (options[i] == 6) error_size_at = (int)i;
        if (options[i] == 2) { float ms = 1.5f; memcpy(&values[i], &ms, sizeof ms); } /* CU_JIT_WALL_TIME */
    }
    if (g_init_result) return g_init_result;
    if (!g_current) return INVALID_CONTEXT;
    const char* ptx = (const char*)image;
    char log[512] = "";
    if (fail) {
        const char* custom = getenv("ENVFIX_STANDIN_JIT_LOG");
        snprintf(log, sizeof log, "%s", custom ? custom : "ptxas fatal   : stand-in failure requested by ENVFIX_STANDIN_FAIL");
        write_log(values, error_at, error_size_at, log);
        return fail;
    }
    if (!module || !ptx) return INVALID_VALUE;
    const char* version = strstr(ptx, ".version ");
    const char* target = strstr(ptx, ".target sm_");
    int isa_major = 0, isa_minor = 0, sm = 0;
    if (!version || sscanf(version, ".version %d.%d", &isa_major, &isa_minor) != 2 || !target ||
        sscanf(target, ".target sm_%d", &sm) != 1) {
        write_log(values, error_at, error_size_at, "ptxas application ptx input, line 1; fatal   : Parsing error");
        return INVALID_PTX;
    }
    int max_isa = max_ptx_isa(g_machine.cuda_version);
    if (isa_major * 10 + isa_minor > max_isa) {
        snprintf(log, sizeof log,
                 "ptxas application ptx input, line 1; fatal   : Unsupported .version %d.%d; current version is '%d.%d'",
                 isa_major, isa_minor, max_isa / 10, max_isa % 10);
        write_log(values, error_at, error_size_at, log);
        return UNSUPPORTED_PTX_VERSION;
    }
    const standin_gpu* g = gpu_of(g_current->device);
    if (g->cc_major * 10 + g->cc_minor < sm) return NO_BINARY_FOR_GPU;

    struct standin_module* m = calloc(1, sizeof *m);
    for (const char* p = strstr(ptx, ".entry "); p && m->count < MAX_ENTRIES; p = strstr(p + 1, ".entry ")) {
        p += 7;
        size_t len = strcspn(p, "( \n");
        if (len >= sizeof m->functions[0].name) continue;
        memcpy(m->functions[m->count].name, p, len);
        m->functions[m->count].name[len] = '\0';
        ++m->count;
    }
    snprintf(log, sizeof log, "ptxas info    : stand-in JIT for sm_%d%d: %d entry functions", g->cc_major, g->cc_minor,
             m->count);
    write_log(values, info_at, info_size_at, log);
    *module = m;
    return SUCCESS;
}

API CUresult cuModuleGetFunction(CUfunction* f, CUmodule module, const char* name) {
    CUresult r = check("cuModuleGetFunction");
    if (r) return r;
    if (!f || !module || !name) return INVALID_VALUE;
    for (int i = 0; i < module->count; ++i)
        if (strcmp(module->functions[i].name, name) == 0) {
            *f = &module->functions[i];
            return SUCCESS;
        }
    return NOT_FOUND;
}

API CUresult cuModuleUnload(CUmodule module) {
    CUresult r = check("cuModuleUnload");
    if (r) return r;
    free(module);
    return SUCCESS;
}

/* ---- launches: envfix's kernels computed on the host ---- */

static float* device_floats(CUdeviceptr p, uint32_t n) {
    return find_range(p, (size_t)n * sizeof(float)) ? (float*)(uintptr_t)p : NULL;
}

static CUresult run_saxpy(void** args) {
    uint32_t n = *(uint32_t*)args[4];
    float a = *(float*)args[3];
    float* out = device_floats(*(CUdeviceptr*)args[0], n);
    float* x = device_floats(*(CUdeviceptr*)args[1], n);
    float* y = device_floats(*(CUdeviceptr*)args[2], n);
    if (!out || !x || !y) return 700; /* the real kernel would fault: CUDA_ERROR_ILLEGAL_ADDRESS */
    for (uint32_t i = 0; i < n; ++i) out[i] = fmaf(a, x[i], y[i]);
    if (standin_wrong("envfix_saxpy") && n) out[n / 2] += 1.0f;
    return SUCCESS;
}

static CUresult run_reduce(void** args, unsigned grid, unsigned block) {
    uint32_t n = *(uint32_t*)args[2];
    if (block == 0 || block > 256 || (block & (block - 1))) return INVALID_VALUE; /* shared array of 256 */
    float* partials = device_floats(*(CUdeviceptr*)args[0], grid);
    float* in = device_floats(*(CUdeviceptr*)args[1], n);
    if (!partials || !in) return 700;
    memset(partials, 0, grid * sizeof(float));
    for (uint32_t i = 0; i < n; ++i) partials[(i / block) % grid] += in[i];
    if (standin_wrong("envfix_reduce_sum")) partials[0] += 1.0f;
    return SUCCESS;
}

API CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                            unsigned shared, CUstream stream, void** params, void** extra) {
    (void)shared;
    (void)stream;
    (void)extra;
    CUresult r = check("cuLaunchKernel");
    if (r) return r;
    if (!g_current) return INVALID_CONTEXT;
    if (!f || !params || gx == 0 || gy != 1 || gz != 1 || bx == 0 || by != 1 || bz != 1 || bx > 1024) return INVALID_VALUE;
    if (strcmp(f->name, "envfix_saxpy") == 0) return run_saxpy(params);
    if (strcmp(f->name, "envfix_reduce_sum") == 0) return run_reduce(params, gx, bx);
    return SUCCESS; /* a kernel the stand-in does not model runs as a no-op */
}

/* ---- events: host clock ---- */

struct standin_event {
    double ms;
    int recorded;
};

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

API CUresult cuEventCreate(CUevent* e, unsigned int flags) {
    (void)flags;
    CUresult r = check("cuEventCreate");
    if (r) return r;
    if (!e) return INVALID_VALUE;
    *e = calloc(1, sizeof **e);
    return SUCCESS;
}

API CUresult cuEventRecord(CUevent e, CUstream stream) {
    (void)stream;
    CUresult r = check("cuEventRecord");
    if (r) return r;
    if (!e) return INVALID_HANDLE;
    e->ms = now_ms();
    e->recorded = 1;
    return SUCCESS;
}

API CUresult cuEventSynchronize(CUevent e) {
    CUresult r = check("cuEventSynchronize");
    if (r) return r;
    return e ? SUCCESS : INVALID_HANDLE;
}

API CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent end) {
    CUresult r = check("cuEventElapsedTime");
    if (r) return r;
    if (!ms) return INVALID_VALUE;
    if (!start || !end || !start->recorded || !end->recorded) return INVALID_HANDLE;
    *ms = (float)(end->ms - start->ms);
    return SUCCESS;
}

API CUresult cuEventDestroy_v2(CUevent e) {
    CUresult r = check("cuEventDestroy_v2");
    if (r) return r;
    if (!e) return INVALID_HANDLE;
    free(e);
    return SUCCESS;
}
