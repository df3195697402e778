/* The libucp entry points libhrelay-emu.so interposes: the ones MPICH 4.0.2's ch4:ucx netmod
 * calls around initialisation, progress and MPI_Finalize (ucp_disconnect_nb, then progress with
 * ucp_request_is_completed, ucp_request_release, the PMI barrier, ucp_worker_destroy). Every
 * other UCX function is reached directly. */
#include <stdint.h>

#include "emu/emu.h"

/* The ucp_params_t fields this library knows (UCX 1.13); a caller setting others is passed
 * through unchanged rather than copied into a struct that may be too small. */
#define KNOWN_PARAM_FIELDS                                                                     \
    (UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_REQUEST_SIZE | UCP_PARAM_FIELD_REQUEST_INIT |  \
     UCP_PARAM_FIELD_REQUEST_CLEANUP | UCP_PARAM_FIELD_TAG_SENDER_MASK |                       \
     UCP_PARAM_FIELD_MT_WORKERS_SHARED | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS |                   \
     UCP_PARAM_FIELD_ESTIMATED_NUM_PPN | UCP_PARAM_FIELD_NAME)

/* ucp_init (an inline calling this): the same context, with UCP_FEATURE_WAKEUP added when
 * HRELAY_EMU_WAKEUP allows it. If UCX refuses the feature, the context is created without. */
EMU_EXPORT ucs_status_t ucp_init_version(unsigned api_major_version, unsigned api_minor_version,
                                         const ucp_params_t *params, const ucp_config_t *config,
                                         ucp_context_h *context_p)
{
    const emu_ucp *real = emu_real();
    if (!emu_settings_get()->wakeup || !params ||
        !(params->field_mask & UCP_PARAM_FIELD_FEATURES) ||
        (params->field_mask & ~(uint64_t)KNOWN_PARAM_FIELDS) ||
        (params->features & UCP_FEATURE_WAKEUP))
        return real->init_version(api_major_version, api_minor_version, params, config,
                                  context_p);
    ucp_params_t with_wakeup = *params;
    with_wakeup.features |= UCP_FEATURE_WAKEUP;
    ucs_status_t status =
        real->init_version(api_major_version, api_minor_version, &with_wakeup, config, context_p);
    if (status == UCS_OK)
        return status;
    emu_say("warning: UCX refused UCP_FEATURE_WAKEUP (%s); idle ranks will busy-poll",
            ucs_status_string(status));
    return real->init_version(api_major_version, api_minor_version, params, config, context_p);
}

/* ucp_worker_create: the real worker, registered with its event fd. */
EMU_EXPORT ucs_status_t ucp_worker_create(ucp_context_h context,
                                          const ucp_worker_params_t *params,
                                          ucp_worker_h *worker_p)
{
    ucs_status_t status = emu_real()->worker_create(context, params, worker_p);
    if (status == UCS_OK)
        emu_worker_created(*worker_p);
    return status;
}

/* ucp_worker_progress: the real progress, blocking when idle (emu_worker_progress). */
EMU_EXPORT unsigned ucp_worker_progress(ucp_worker_h worker)
{
    return emu_worker_progress(worker);
}

/* ucp_worker_destroy: stops the worker's helper thread first. */
EMU_EXPORT void ucp_worker_destroy(ucp_worker_h worker)
{
    emu_worker_destroying(worker);
    emu_real()->worker_destroy(worker);
}

/* ucp_disconnect_nb (MPICH 4.0.2 closes every endpoint with it in MPI_Finalize): starts the
 * finalize helpers, then the real close, serialised with them. */
EMU_EXPORT ucs_status_ptr_t ucp_disconnect_nb(ucp_ep_h ep)
{
    emu_closing();
    bool taken = emu_lock();
    ucs_status_ptr_t request = emu_real()->disconnect_nb(ep);
    emu_unlock(taken);
    return request;
}

/* ucp_ep_close_nb: as ucp_disconnect_nb. */
EMU_EXPORT ucs_status_ptr_t ucp_ep_close_nb(ucp_ep_h ep, unsigned mode)
{
    emu_closing();
    bool taken = emu_lock();
    ucs_status_ptr_t request = emu_real()->ep_close_nb(ep, mode);
    emu_unlock(taken);
    return request;
}

/* ucp_ep_close_nbx: as ucp_disconnect_nb. */
EMU_EXPORT ucs_status_ptr_t ucp_ep_close_nbx(ucp_ep_h ep, const ucp_request_param_t *param)
{
    emu_closing();
    bool taken = emu_lock();
    ucs_status_ptr_t request = emu_real()->ep_close_nbx(ep, param);
    emu_unlock(taken);
    return request;
}

/* ucp_request_is_completed: the real one, serialised with the helpers. */
EMU_EXPORT int ucp_request_is_completed(void *request)
{
    bool taken = emu_lock();
    int done = emu_real()->request_is_completed(request);
    emu_unlock(taken);
    return done;
}

/* ucp_request_release: the real one, serialised with the helpers. */
EMU_EXPORT void ucp_request_release(void *request)
{
    bool taken = emu_lock();
    emu_real()->request_release(request);
    emu_unlock(taken);
}

/* ucp_request_free: the real one, serialised with the helpers. */
EMU_EXPORT void ucp_request_free(void *request)
{
    bool taken = emu_lock();
    emu_real()->request_free(request);
    emu_unlock(taken);
}

/* ucp_request_check_status: the real one, serialised with the helpers. */
EMU_EXPORT ucs_status_t ucp_request_check_status(void *request)
{
    bool taken = emu_lock();
    ucs_status_t status = emu_real()->request_check_status(request);
    emu_unlock(taken);
    return status;
}
