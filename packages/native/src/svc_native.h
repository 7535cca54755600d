// Helpers shared by the addon's source files (defined in svc_native.c).
#ifndef SVC_NATIVE_H
#define SVC_NATIVE_H
#include <node_api.h>
#include <sys/socket.h>

// Throws an Error with code = errno name (ECONNREFUSED...), message "what: strerror", and .errno.
napi_value throw_errno(napi_env env, int err, const char *what);
napi_value throw_type(napi_env env, const char *msg);
// Copies a JS string into out; 0 when v is not a string.
int get_str(napi_env env, napi_value v, char *out, size_t n);
// Parses an address literal of family 4|6 ("addr%scope" for IPv6) with port into ss; 0 on failure.
int make_addr(int family, const char *addr, int port, struct sockaddr_storage *ss, socklen_t *len);
// Adds the function fn to exports as `name`.
void export_function(napi_env env, napi_value exports, const char *name, napi_callback fn);
// Adds tcpProbe / tcpProbeAbort to exports (tcp_probe.c).
void register_tcp_probe(napi_env env, napi_value exports);
#endif
