#include "standin_config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int standin_copy(char* dst, size_t n, const char* s) {
    size_t len = strlen(s);
    if (n == 0) return 0;
    if (len >= n) {
        memcpy(dst, s, n - 1);
        dst[n - 1] = '\0';
        return 0;
    }
    memcpy(dst, s, len + 1);
    return 1;
}

static void trim(char* s) {
    size_t len = strlen(s), start = 0;
    while (len > 0 && isspace((unsigned char)s[len - 1])) s[--len] = '\0';
    while (s[start] && isspace((unsigned char)s[start])) ++start;
    if (start) memmove(s, s + start, len - start + 1);
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* "GPU-01234567-89ab-cdef-0123-456789abcdef" -> 16 bytes. */
static int parse_uuid(const char* text, unsigned char out[16]) {
    const char* p = text;
    int n = 0;
    if (strncmp(p, "GPU-", 4) == 0) p += 4;
    while (*p && n < 32) {
        if (*p == '-') { ++p; continue; }
        int v = hex_value(*p);
        if (v < 0) return 0;
        if (n % 2 == 0) out[n / 2] = (unsigned char)(v << 4);
        else out[n / 2] |= (unsigned char)v;
        ++n;
        ++p;
    }
    return n == 32 && *p == '\0';
}

static void format_uuid(const unsigned char b[16], char* out, size_t n) {
    snprintf(out, n, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
             b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* "34190917632", "32607MiB", "141GiB" */
static unsigned long long parse_memory(const char* s) {
    char* end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (end && (strcmp(end, "MiB") == 0 || strcmp(end, "M") == 0)) return v << 20;
    if (end && (strcmp(end, "GiB") == 0 || strcmp(end, "G") == 0)) return v << 30;
    return v;
}

static void set_field(standin_gpu* g, const char* key, const char* value) {
    if (strcmp(key, "name") == 0) standin_copy(g->name, sizeof g->name, value);
    else if (strcmp(key, "cc") == 0) {
        if (sscanf(value, "%d.%d", &g->cc_major, &g->cc_minor) != 2)
            fprintf(stderr, "standin: bad cc \"%s\" (want 8.6)\n", value);
    } else if (strcmp(key, "mem") == 0) g->memory_bytes = parse_memory(value);
    else if (strcmp(key, "cuda_mem") == 0) g->cuda_memory_bytes = parse_memory(value);
    else if (strcmp(key, "sms") == 0) g->sm_count = atoi(value);
    else if (strcmp(key, "bus") == 0) standin_copy(g->bus_id, sizeof g->bus_id, value);
    else if (strcmp(key, "uuid") == 0) {
        if (!parse_uuid(value, g->uuid)) fprintf(stderr, "standin: bad uuid \"%s\"\n", value);
    } else if (strcmp(key, "integrated") == 0) g->integrated = atoi(value);
    else if (strcmp(key, "cuda") == 0) g->cuda = atoi(value);
    else if (strcmp(key, "model") == 0) {
        g->driver_model = strcmp(value, "wddm") == 0 ? 0 : strcmp(value, "tcc") == 0 ? 1 : strcmp(value, "mcdm") == 0 ? 2 : -1;
        if (g->driver_model < 0) fprintf(stderr, "standin: bad model \"%s\" (want wddm, tcc or mcdm)\n", value);
    } else
        fprintf(stderr, "standin: unknown GPU field \"%s\"\n", key);
}

/* One GPU: "name=NVIDIA H200,cc=9.0,mem=143771MiB,sms=132,bus=0000:18:00.0,uuid=GPU-..." */
static void parse_gpu(char* spec, int index, standin_gpu* g) {
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "Stand-in GPU %d", index);
    g->cc_major = 8;
    g->cc_minor = 6;
    g->memory_bytes = 8ull << 30;
    g->sm_count = 40;
    g->cuda = 1;
    g->driver_model = -1;
    snprintf(g->bus_id, sizeof g->bus_id, "0000:%02x:00.0", index + 1);
    for (int i = 0; i < 16; ++i) g->uuid[i] = (unsigned char)(0x10 * (index + 1) + i);
    char* save = NULL;
    for (char* field = strtok_r(spec, ",", &save); field; field = strtok_r(NULL, ",", &save)) {
        char* eq = strchr(field, '=');
        if (!eq) {
            fprintf(stderr, "standin: GPU field \"%s\" lacks '='\n", field);
            continue;
        }
        *eq = '\0';
        trim(field);
        char* value = eq + 1;
        trim(value);
        set_field(g, field, value);
    }
    format_uuid(g->uuid, g->uuid_text, sizeof g->uuid_text);
}

void standin_read_machine(standin_machine* m) {
    memset(m, 0, sizeof *m);
    const char* gpus = getenv("ENVFIX_STANDIN_GPUS");
    if (gpus && *gpus) {
        char* copy = strdup(gpus);
        char* save = NULL;
        for (char* spec = strtok_r(copy, ";", &save); spec && m->gpu_count < STANDIN_MAX_GPUS;
             spec = strtok_r(NULL, ";", &save)) {
            trim(spec);
            if (!*spec) continue;
            parse_gpu(spec, m->gpu_count, &m->gpus[m->gpu_count]);
            ++m->gpu_count;
        }
        free(copy);
    }
    const char* driver = getenv("ENVFIX_STANDIN_DRIVER");
    if (driver) standin_copy(m->driver_version, sizeof m->driver_version, driver);
    const char* cuda = getenv("ENVFIX_STANDIN_CUDA");
    m->cuda_version = cuda && *cuda ? atoi(cuda) : 13000;
}

int standin_fail_code(const char* entry) {
    const char* spec = getenv("ENVFIX_STANDIN_FAIL");
    size_t len = strlen(entry);
    while (spec && *spec) {
        while (*spec == ',' || *spec == ' ') ++spec;
        if (strncmp(spec, entry, len) == 0 && spec[len] == '=') return atoi(spec + len + 1);
        spec = strchr(spec, ',');
    }
    return 0;
}

int standin_wrong(const char* kernel) {
    const char* spec = getenv("ENVFIX_STANDIN_WRONG");
    return spec && strstr(spec, kernel) != NULL;
}

void standin_log(const char* entry, const char* detail) {
    const char* path = getenv("ENVFIX_STANDIN_CALL_LOG");
    if (!path || !*path) return;
    FILE* f = fopen(path, "a");
    if (!f) return;
    fprintf(f, "%s%s%s\n", entry, detail && *detail ? " " : "", detail ? detail : "");
    fclose(f);
}
