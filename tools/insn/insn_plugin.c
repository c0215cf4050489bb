/* A QEMU TCG plugin (plugin API v1, QEMU 7.2) that counts the guest instructions executed per function
 * (ELF symbol) between markers, for `make insn`. Works the same under qemu-system-arm (bare-metal images)
 * and qemu-user (Linux programs).
 *
 * Regions: executing the function auspex_insn_begin_<NAME> starts region NAME (all counts zeroed);
 * executing auspex_insn_end prints the region's counts through qemu_plugin_outs (stderr with -d plugin) and
 * stops counting. Outside a region nothing is counted.
 *
 * Each executed instruction counts for its own symbol ("self") and for the current context ("attributed").
 * Contexts are the C++ functions (mangled names, "_Z...") outside anonymous namespaces; any other code (the
 * C library, libgcc's software floating point, memcpy, anonymous-namespace helpers) counts for the
 * context that was running when it was called, so a kernel's attributed count includes the helpers it
 * calls, and the runtime code between kernels counts for the runtime function that runs it.
 *
 * Output, one line each:
 *   insn region NAME total N
 *   insn sym SELF ATTRIBUTED NAME
 *   insn end NAME
 *
 * Debian ships QEMU with plugin support but without qemu-plugin.h: the few declarations used are below,
 * as QEMU 7.2's include/qemu/qemu-plugin.h has them. Build: gcc -shared -fPIC -O2 -o insn_plugin.so
 * insn_plugin.c. Counts are instructions, not cycles. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb* tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void* userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void* userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn* insn, qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void* userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
struct qemu_plugin_insn* qemu_plugin_tb_get_insn(const struct qemu_plugin_tb* tb, size_t idx);
const char* qemu_plugin_insn_symbol(const struct qemu_plugin_insn* insn);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void* userdata);
void qemu_plugin_outs(const char* string);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

enum kind { KIND_HELPER, KIND_CONTEXT, KIND_BEGIN, KIND_END };

struct symbol {
    const char* name; /* QEMU's string; symbols are looked up once per translation */
    enum kind kind;
    uint64_t self, attributed;
    struct symbol* next; /* hash chain */
};

/* A run of consecutive instructions of one symbol inside a translation block. */
struct run {
    struct symbol* sym;
    uint64_t n;
};

#define BUCKETS 4096
static struct symbol* table[BUCKETS];
static struct symbol unknown = {"[no symbol]", KIND_HELPER, 0, 0, NULL};
static struct symbol* current;
static const char* region;
static uint64_t region_total;

static unsigned hash(const char* s) {
    unsigned h = 2166136261u;
    for (; *s; ++s) h = (h ^ (unsigned char)*s) * 16777619u;
    return h % BUCKETS;
}

static enum kind classify(const char* name) {
    if (strncmp(name, "auspex_insn_begin_", 18) == 0) return KIND_BEGIN;
    if (strcmp(name, "auspex_insn_end") == 0) return KIND_END;
    if (strncmp(name, "_Z", 2) == 0 && strstr(name, "_GLOBAL__N_") == NULL) return KIND_CONTEXT;
    return KIND_HELPER;
}

static struct symbol* lookup(const char* name) {
    if (name == NULL || *name == '\0') return &unknown;
    const unsigned h = hash(name);
    for (struct symbol* s = table[h]; s; s = s->next)
        if (strcmp(s->name, name) == 0) return s;
    struct symbol* s = calloc(1, sizeof *s);
    if (s == NULL) abort();
    s->name = strdup(name);
    s->kind = classify(name);
    s->next = table[h];
    table[h] = s;
    return s;
}

static void print_region(void) {
    char line[1024];
    snprintf(line, sizeof line, "insn region %s total %llu\n", region, (unsigned long long)region_total);
    qemu_plugin_outs(line);
    for (unsigned b = 0; b < BUCKETS; ++b)
        for (struct symbol* s = table[b]; s; s = s->next)
            if (s->self || s->attributed) {
                snprintf(line, sizeof line, "insn sym %llu %llu %s\n", (unsigned long long)s->self,
                         (unsigned long long)s->attributed, s->name);
                qemu_plugin_outs(line);
            }
    if (unknown.self) {
        snprintf(line, sizeof line, "insn sym %llu %llu %s\n", (unsigned long long)unknown.self,
                 (unsigned long long)unknown.attributed, unknown.name);
        qemu_plugin_outs(line);
    }
    snprintf(line, sizeof line, "insn end %s\n", region);
    qemu_plugin_outs(line);
}

static void on_run(unsigned int vcpu, void* userdata) {
    (void)vcpu;
    const struct run* r = userdata;
    struct symbol* s = r->sym;
    if (s->kind == KIND_BEGIN) {
        for (unsigned b = 0; b < BUCKETS; ++b)
            for (struct symbol* t = table[b]; t; t = t->next) t->self = t->attributed = 0;
        unknown.self = unknown.attributed = 0;
        region = s->name + 18;
        region_total = 0;
        current = NULL;
        return;
    }
    if (s->kind == KIND_END) {
        if (region) print_region();
        region = NULL;
        return;
    }
    if (region == NULL) return;
    if (s->kind == KIND_CONTEXT) current = s;
    s->self += r->n;
    (current ? current : s)->attributed += r->n;
    region_total += r->n;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
    (void)id;
    const size_t n = qemu_plugin_tb_n_insns(tb);
    size_t i = 0;
    while (i < n) {
        struct qemu_plugin_insn* first = qemu_plugin_tb_get_insn(tb, i);
        struct symbol* s = lookup(qemu_plugin_insn_symbol(first));
        size_t j = i + 1;
        while (j < n && lookup(qemu_plugin_insn_symbol(qemu_plugin_tb_get_insn(tb, j))) == s) ++j;
        /* Translation blocks are retranslated now and then; their runs are never freed (a few MB at most). */
        struct run* r = malloc(sizeof *r);
        if (r == NULL) abort();
        r->sym = s;
        r->n = j - i;
        qemu_plugin_register_vcpu_insn_exec_cb(first, on_run, QEMU_PLUGIN_CB_NO_REGS, r);
        i = j;
    }
}

static void on_plugin_exit(qemu_plugin_id_t id, void* userdata) {
    (void)id;
    (void)userdata;
    if (region) {
        qemu_plugin_outs("insn warning: the program ended inside a region\n");
        print_region();
    }
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc,
                                                               char** argv) {
    (void)info;
    (void)argc;
    (void)argv;
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_plugin_exit, NULL);
    return 0;
}
