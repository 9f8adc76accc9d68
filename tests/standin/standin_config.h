/* What the stand-in driver libraries answer, read from environment variables at each
 * cuInit / nvmlInit_v2 (so one test process can switch machines). README.md lists the variables.
 * Shared by libcuda_standin.c and libnvml_standin.c; not part of envfix. */
#ifndef ENVFIX_STANDIN_CONFIG_H
#define ENVFIX_STANDIN_CONFIG_H

#include <stddef.h>

#define STANDIN_MAX_GPUS 16

typedef struct {
    char name[96];
    int cc_major, cc_minor;
    unsigned long long memory_bytes;      /* the board's memory, as NVML and nvidia-smi say */
    unsigned long long cuda_memory_bytes; /* cuDeviceTotalMem's (a little less on real GPUs); 0: memory_bytes */
    int sm_count;
    char bus_id[32];
    unsigned char uuid[16];
    char uuid_text[48]; /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
    int integrated;
    int cuda; /* 0: NVML lists it but the CUDA driver does not (a GPU this driver cannot run) */
    int driver_model; /* Windows' nvmlDriverModel_t: 0 WDDM, 1 WDM (TCC), 2 MCDM; -1 none (Linux) */
} standin_gpu;

typedef struct {
    standin_gpu gpus[STANDIN_MAX_GPUS];
    int gpu_count;
    char driver_version[80]; /* "" when ENVFIX_STANDIN_DRIVER is unset */
    int cuda_version;        /* cuDriverGetVersion's value */
} standin_machine;

/* Parses ENVFIX_STANDIN_GPUS, ENVFIX_STANDIN_DRIVER, ENVFIX_STANDIN_CUDA. Malformed values are
 * reported on stderr (the stand-in is a test tool) and skipped. */
void standin_read_machine(standin_machine* m);

/* The code ENVFIX_STANDIN_FAIL gives `entry` ("cuInit=803,nvmlInit_v2=9"), else 0. */
int standin_fail_code(const char* entry);

/* 1 when ENVFIX_STANDIN_WRONG names `kernel`: its results are made wrong on purpose. */
int standin_wrong(const char* kernel);

/* Appends "<entry> <detail>\n" to ENVFIX_STANDIN_CALL_LOG when set. */
void standin_log(const char* entry, const char* detail);

/* Copies s into dst (size n), always NUL-terminated; returns 0 when it did not fit. */
int standin_copy(char* dst, size_t n, const char* s);

#endif
