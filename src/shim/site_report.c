/* Call sites for the report: every rank turns its sites' addresses into (file, address in the
 * file), which is the same in every process of one program whatever the load address; rank 0
 * gathers them, merges equal sites over ranks, and resolves each frame to "file:line function"
 * with binutils' addr2line (run once per file), falling back to the symbol or file+offset. */
#include <fcntl.h>
#include <mpi.h>
#include <link.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shim/gather_root.h"
#include "shim/site_report.h"

extern char **environ;

/* A frame as the same in every process: the module's path and the address in its file. */
typedef struct where {
    char path[SHIM_PATH_MAX];
    uint64_t vaddr;
} where;

/* dl_iterate_phdr callback: if the module loaded at info holds data->vaddr (an address in
 * this process), fills data's path and file address and stops. */
static int locate_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    where *w = data;
    uintptr_t a = (uintptr_t)w->vaddr;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type != PT_LOAD || a < lo || a >= lo + ph->p_memsz)
            continue;
        const char *name = info->dlpi_name;
        if (!name || !*name) { /* the program itself */
            ssize_t n = readlink("/proc/self/exe", w->path, sizeof w->path - 1);
            w->path[n > 0 ? n : 0] = '\0';
        } else {
            snprintf(w->path, sizeof w->path, "%s", name);
        }
        w->vaddr = a - info->dlpi_addr;
        return 1;
    }
    return 0;
}

/* The module and file address of address a of this process ("" and a if none holds it). */
static where locate(uintptr_t a)
{
    where w = {.path = "", .vaddr = a};
    if (a && !dl_iterate_phdr(locate_cb, &w)) {
        w.path[0] = '\0';
        w.vaddr = a;
    }
    return w;
}

/* A growing byte buffer. */
typedef struct bytes {
    char *data;
    size_t len, cap;
    int failed;
} bytes;

/* Appends n bytes of p. */
static void put(bytes *b, const void *p, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        char *d = realloc(b->data, cap);
        if (!d) {
            b->failed = 1;
            return;
        }
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

/* This rank's sites on the wire: per site its statistics, its frame count, and per frame the
 * file address, the path length and the path. */
static void serialise(const shim_sites *s, bytes *out)
{
    for (size_t i = 0; i < s->n; i++) {
        const shim_site *site = &s->site[i];
        int32_t n = site->nframes;
        put(out, &site->st, sizeof site->st);
        put(out, &n, sizeof n);
        for (int k = 0; k < n; k++) {
            where w = locate(site->frames[k]);
            uint32_t len = (uint32_t)strlen(w.path);
            put(out, &w.vaddr, sizeof w.vaddr);
            put(out, &len, sizeof len);
            put(out, w.path, len);
        }
    }
}

/* One site of one rank, on rank 0: its frames (as the same in every process) and
 * statistics. */
typedef struct merged {
    int rank;
    int nframes;
    where frame[SHIM_SITE_FRAMES];
    shim_stats st;
} merged;

/* Combines one rank's statistics of a site into the merged ones: bytes add up, everything
 * else is the largest over ranks (the calls of one collective are counted on every rank). */
static void merge_ranks(shim_stats *a, const shim_stats *b)
{
#define MAXOF(f) a->f = a->f > b->f ? a->f : b->f
    MAXOF(calls);
    MAXOF(plans_computed);
    MAXOF(cache_hits);
    MAXOF(unchecked);
    MAXOF(new_patterns);
    MAXOF(before_gather);
    MAXOF(explore_calls);
    MAXOF(explore_s);
    MAXOF(time_s);
    MAXOF(modeled_native_s);
    MAXOF(native_s);
    for (int i = 0; i < PLAN_ALGO_COUNT; i++) {
        MAXOF(algo_calls[i]);
        for (int v = PLAN_VARIANT_BASE + 1; v <= PLAN_VARIANT_NODE_WINDOW; v++)
            MAXOF(variant_calls[i][v]);
    }
#undef MAXOF
    a->bytes += b->bytes;
}

/* Parses the gathered buffers of all ranks (rank r's at displs[r], lens[r] bytes) into one
 * entry per site and rank (*out, *n; frames equal within a rank are merged). Returns 0 or -1. */
static int parse_all(const char *buf, const int *lens, const int *displs, int ranks, merged **out,
                     size_t *n)
{
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    for (int rank = 0; rank < ranks; rank++) {
        size_t at = (size_t)displs[rank], len = at + (size_t)lens[rank];
        while (at < len) {
            merged m;
            memset(&m, 0, sizeof m);
            m.rank = rank;
            int32_t nf;
            if (len - at < sizeof m.st + sizeof nf)
                return -1;
            memcpy(&m.st, buf + at, sizeof m.st);
            memcpy(&nf, buf + at + sizeof m.st, sizeof nf);
            at += sizeof m.st + sizeof nf;
            if (nf < 0 || nf > SHIM_SITE_FRAMES)
                return -1;
            m.nframes = nf;
            for (int k = 0; k < nf; k++) {
                uint32_t plen;
                if (len - at < sizeof(uint64_t) + sizeof plen)
                    return -1;
                memcpy(&m.frame[k].vaddr, buf + at, sizeof(uint64_t));
                memcpy(&plen, buf + at + sizeof(uint64_t), sizeof plen);
                at += sizeof(uint64_t) + sizeof plen;
                if (plen >= SHIM_PATH_MAX || len - at < plen)
                    return -1;
                memcpy(m.frame[k].path, buf + at, plen);
                m.frame[k].path[plen] = '\0';
                at += plen;
            }
            if (*n == cap) {
                cap = cap ? 2 * cap : 8;
                merged *g = realloc(*out, cap * sizeof *g);
                if (!g)
                    return -1;
                *out = g;
            }
            (*out)[(*n)++] = m;
        }
    }
    return 0;
}

/* Merges the named entries in place into one per name: entries of one rank add up (a line
 * the compiler split into several calls), then ranks combine by merge_ranks. Returns the
 * number of entries left (the first of each name, in order; all n when out of memory). */
static size_t merge_by_name(shim_site_report *r, const merged *m, size_t n)
{
    char *used = calloc(n ? n : 1, 1);
    if (!used)
        return n;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (used[i])
            continue;
        shim_site_report first = r[i];
        shim_stats total = {0};
        for (size_t j = i; j < n; j++) { /* each rank's entries of this name, summed */
            if (used[j] || strcmp(r[j].name, first.name))
                continue;
            shim_stats rank_sum = {0};
            for (size_t q = j; q < n; q++)
                if (!used[q] && m[q].rank == m[j].rank && !strcmp(r[q].name, first.name)) {
                    shim_stats_fold(&rank_sum, &r[q].st);
                    used[q] = 1;
                }
            merge_ranks(&total, &rank_sum);
        }
        r[kept] = first;
        r[kept++].st = total;
    }
    free(used);
    return kept;
}

/* The environment for a helper program: this process's environment without LD_PRELOAD, so
 * that neither this library nor a sanitizer runtime is loaded into the helper. Returns a
 * NULL-terminated array pointing into environ (free only the array), or NULL without memory. */
static char **helper_environment(void)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 1, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0)
            env[k++] = environ[i];
    return env;
}

/* Runs "addr2line -f -C -e path addr..." for the n file addresses and writes, per address,
 * "file:line function" (file without its directory) into names[i] (cap bytes each), or leaves
 * names[i] empty where addr2line knows nothing. Returns 0, or -1 if addr2line could not run. */
static int addr2line(const char *path, const uint64_t *addr, size_t n, char (*names)[512])
{
    int fd[2];
    if (n == 0 || pipe(fd) != 0)
        return -1;
    char **argv = calloc(n + 6, sizeof *argv), (*hex)[24] = calloc(n, sizeof *hex);
    char **env = helper_environment();
    int rc = -1;
    pid_t pid = 0;
    posix_spawn_file_actions_t fa;
    if (!argv || !hex || !env || posix_spawn_file_actions_init(&fa) != 0) {
        free(argv);
        free(hex);
        free(env);
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    argv[0] = "addr2line";
    argv[1] = "-f";
    argv[2] = "-C";
    argv[3] = "-e";
    argv[4] = (char *)path;
    for (size_t i = 0; i < n; i++) {
        snprintf(hex[i], sizeof hex[i], "0x%llx", (unsigned long long)addr[i]);
        argv[5 + i] = hex[i];
    }
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    int spawned = posix_spawnp(&pid, "addr2line", &fa, NULL, argv, env) == 0;
    posix_spawn_file_actions_destroy(&fa);
    free(env);
    close(fd[1]);
    FILE *in = fdopen(fd[0], "r");
    if (!in)
        close(fd[0]);
    if (spawned && in) {
        char func[512], loc[1024];
        size_t i = 0;
        for (; i < n && fgets(func, sizeof func, in) && fgets(loc, sizeof loc, in); i++) {
            func[strcspn(func, "\n")] = '\0';
            loc[strcspn(loc, "\n")] = '\0';
            char *disc = strstr(loc, " (discriminator");
            if (disc)
                *disc = '\0';
            const char *file = strrchr(loc, '/');
            file = file ? file + 1 : loc;
            names[i][0] = '\0';
            if (strncmp(file, "??", 2) && strcmp(func, "??"))
                snprintf(names[i], sizeof names[i], "%.200s %.300s", file, func);
            else if (strcmp(func, "??"))
                snprintf(names[i], sizeof names[i], "%.500s", func);
        }
        rc = i == n ? 0 : -1;
    }
    if (in)
        fclose(in);
    if (spawned) {
        int status;
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            rc = -1;
    }
    free(argv);
    free(hex);
    return rc;
}

/* Names every entry's frames (see shim_sites_gather) into out[i].name, and copies its
 * statistics. */
static void resolve(const merged *m, size_t n, shim_site_report *out)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += (size_t)m[i].nframes;
    char (*names)[512] = calloc(total ? total : 1, sizeof *names);
    uint64_t *addr = calloc(total ? total : 1, sizeof *addr);
    size_t *idx = calloc(total ? total : 1, sizeof *idx);
    char *done = calloc(total ? total : 1, 1);
    const where **fr = calloc(total ? total : 1, sizeof *fr);
    size_t k = 0;
    for (size_t i = 0; fr && i < n; i++)
        for (int f = 0; f < m[i].nframes; f++)
            fr[k++] = &m[i].frame[f];
    for (size_t a = 0; names && addr && idx && done && fr && a < total; a++) {
        if (done[a] || !fr[a]->path[0] || fr[a]->vaddr == 0)
            continue;
        size_t c = 0; /* every frame of this module, resolved by one addr2line run */
        for (size_t b = a; b < total; b++)
            if (!done[b] && !strcmp(fr[b]->path, fr[a]->path)) {
                addr[c] = fr[b]->vaddr;
                idx[c++] = b;
                done[b] = 1;
            }
        char (*got)[512] = calloc(c, sizeof *got);
        if (got && addr2line(fr[a]->path, addr, c, got) == 0)
            for (size_t j = 0; j < c; j++)
                memcpy(names[idx[j]], got[j], sizeof got[j]);
        free(got);
    }
    k = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = 0;
        out[i].st = m[i].st;
        out[i].name[0] = '\0';
        for (int f = 0; f < m[i].nframes; f++, k++) {
            char one[640];
            const where *w = &m[i].frame[f];
            const char *base = strrchr(w->path, '/');
            base = base ? base + 1 : w->path;
            if (names && names[k][0])
                snprintf(one, sizeof one, "%s", names[k]);
            else if (w->vaddr && base[0])
                snprintf(one, sizeof one, "%s+0x%llx", base, (unsigned long long)w->vaddr);
            else
                snprintf(one, sizeof one, "unknown");
            len += (size_t)snprintf(out[i].name + len, len < sizeof out[i].name ? sizeof out[i].name - len : 0,
                                    "%s%s", f ? " < " : "", one);
            if (len >= sizeof out[i].name)
                len = sizeof out[i].name - 1;
        }
        if (!m[i].nframes)
            snprintf(out[i].name, sizeof out[i].name, "unknown");
    }
    free(names);
    free(addr);
    free(idx);
    free(done);
    free(fr);
}

int shim_sites_gather(const shim_sites *mine, shim_site_report **out, size_t *n)
{
    bytes b = {0};
    int rank;
    shim_gathered g;
    *out = NULL;
    *n = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    serialise(mine, &b);
    int rc = shim_gather_root(b.data, b.failed || b.len > (size_t)INT32_MAX ? -1 : (int)b.len, &g);
    int gathered = rc == MPI_SUCCESS; /* on every rank alike */
    if (gathered && rank == 0) {
        merged *m = NULL;
        size_t nm = 0;
        if (parse_all(g.all, g.lens, g.displs, g.n, &m, &nm) == 0 &&
            (*out = calloc(nm ? nm : 1, sizeof **out))) {
            resolve(m, nm, *out);
            *n = merge_by_name(*out, m, nm);
        } else {
            rc = MPI_ERR_NO_MEM;
        }
        free(m);
    }
    /* rank 0 alone merges: every rank learns whether it could, so that all go on alike */
    if (gathered) {
        int failed = rc != MPI_SUCCESS;
        int brc = PMPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
        rc = brc != MPI_SUCCESS ? brc : failed ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    }
    free(b.data);
    shim_gathered_free(&g);
    return rc;
}
