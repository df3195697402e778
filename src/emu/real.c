/* The real libucp entry points behind the interposed ones (dlsym(RTLD_NEXT)), resolved once. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "emu/emu.h"

static emu_ucp real_ucp;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

/* Returns the next definition of name; aborts with a message when there is none. */
static void *next_symbol(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        emu_say("cannot find %s in the libraries loaded after libhrelay-emu.so (%s); is libucp "
                "loaded?",
                name, dlerror());
        abort();
    }
    return f;
}

/* Fills real_ucp (run once). */
static void resolve(void)
{
    emu_ucp *r = &real_ucp;
    *(void **)&r->init_version = next_symbol("ucp_init_version");
    *(void **)&r->worker_create = next_symbol("ucp_worker_create");
    *(void **)&r->worker_destroy = next_symbol("ucp_worker_destroy");
    *(void **)&r->worker_progress = next_symbol("ucp_worker_progress");
    *(void **)&r->worker_arm = next_symbol("ucp_worker_arm");
    *(void **)&r->worker_get_efd = next_symbol("ucp_worker_get_efd");
    *(void **)&r->worker_signal = next_symbol("ucp_worker_signal");
    *(void **)&r->disconnect_nb = next_symbol("ucp_disconnect_nb");
    *(void **)&r->ep_close_nb = next_symbol("ucp_ep_close_nb");
    *(void **)&r->ep_close_nbx = next_symbol("ucp_ep_close_nbx");
    *(void **)&r->request_is_completed = next_symbol("ucp_request_is_completed");
    *(void **)&r->request_release = next_symbol("ucp_request_release");
    *(void **)&r->request_free = next_symbol("ucp_request_free");
    *(void **)&r->request_check_status = next_symbol("ucp_request_check_status");
    *(void **)&r->get_system_id = next_symbol("ucs_get_system_id");
}

/* The real functions (see emu.h). */
const emu_ucp *emu_real(void)
{
    pthread_once(&real_once, resolve);
    return &real_ucp;
}
