/* What an emulated host is to UCX: the machine whose memory a process shares. UCX's
 * shared-memory transports (posix, sysv, cma) reach a peer when its system id equals their own;
 * the real id comes from the boot id, the same in every network namespace, so without this every
 * rank of the machine would share memory with every other and bypass the emulated links. */
#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>

#include "emu/emu.h"

static uint64_t system_id;
static pthread_once_t system_id_once = PTHREAD_ONCE_INIT;

/* Fills system_id (run once): the real id mixed with the network namespace of the process. */
static void compute_system_id(void)
{
    uint64_t id = emu_real()->get_system_id();
    struct stat ns;
    if (stat("/proc/self/ns/net", &ns) == 0)
        id ^= ((uint64_t)ns.st_ino + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t)ns.st_dev;
    system_id = id;
}

/* ucs_get_system_id (libuct calls it through the PLT, often: on every reachability check): one
 * id per emulated host, the same for every rank in the host's network namespace, different
 * between hosts. */
EMU_EXPORT uint64_t ucs_get_system_id(void)
{
    pthread_once(&system_id_once, compute_system_id);
    return system_id;
}
