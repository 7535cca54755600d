// A tcp probe in C: connect, send FIN once connected, wait for the peer's answer to it (its FIN, or the reset
// an svc agent's listener answers with, docs/decisions.md), close. One JavaScript callback per probe instead of
// a net.Socket with its stream machinery, and the times are read where the events are seen (libuv's poll
// callback), not after the JavaScript that follows them. A connect the kernel completed inside the connect call
// (loopback) is taken at once, saving a wake-up. The socket lingers 0: a probe that ends before the peer
// answered (timeout, abort) resets the connection rather than leaving an orphan that would end in TIME_WAIT.
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#include "svc_native.h"

enum { PROBE_CONNECTING, PROBE_CLOSING, PROBE_DONE };

typedef struct {
  int fd;
  int state;
  uint64_t start;      /* uv_hrtime() right before connect() */
  uint64_t connected;  /* when the handshake was seen complete; 0 before */
  napi_env env;
  uv_poll_t poll;
  napi_ref self;  // strong until the poll handle is closed, so the wrapper outlives it
  napi_ref cb;    // (code | undefined, message | undefined, connectNs, totalNs); -1 = not reached
} tcp_probe_t;

static void tcp_on_poll(uv_poll_t *h, int status, int events);

/* One async context for every probe's callback (per environment, made on first use): async hooks see the
   callbacks as coming from a "svc_tcp_probe" resource, without an async_init per probe. */
static napi_async_context tcp_async_context(napi_env env) {
  void *data = NULL;
  napi_get_instance_data(env, &data);
  if (data) return (napi_async_context)data;
  napi_value resource, name;
  napi_async_context ctx = NULL;
  napi_create_object(env, &resource);
  napi_create_string_utf8(env, "svc_tcp_probe", NAPI_AUTO_LENGTH, &name);
  if (napi_async_init(env, resource, name, &ctx) == napi_ok) napi_set_instance_data(env, ctx, NULL, NULL);
  return ctx;
}

static void tcp_on_closed(uv_handle_t *h) {
  tcp_probe_t *p = (tcp_probe_t *)h->data;
  if (p->cb) napi_delete_reference(p->env, p->cb);
  p->cb = NULL;
  napi_ref self = p->self;
  p->self = NULL;
  if (self) napi_delete_reference(p->env, self);  // the finalizer may now free p
}

static void tcp_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  free(data);
}

// Stops watching and closes the socket; the handle's memory goes with the JavaScript wrapper.
static void tcp_release(tcp_probe_t *p) {
  p->state = PROBE_DONE;
  uv_poll_stop(&p->poll);
  uv_close((uv_handle_t *)&p->poll, tcp_on_closed);  // deregisters the fd now; the callback is deferred
  close(p->fd);
  p->fd = -1;
}

static napi_value ns_value(napi_env env, uint64_t from, uint64_t to) {
  napi_value v;
  napi_create_double(env, to ? (double)(to - from) : -1, &v);
  return v;
}

// Ends the probe from the loop and tells JavaScript: err 0 = the connection closed cleanly (total known).
static void tcp_finish(tcp_probe_t *p, int err, uint64_t closed_at) {
  napi_env env = p->env;
  napi_ref cb = p->cb;
  p->cb = NULL;  // tcp_on_closed must not delete it before the call
  tcp_release(p);
  if (!cb) return;
  napi_handle_scope scope;
  napi_open_handle_scope(env, &scope);
  napi_value fn, recv, res, argv[4];
  if (napi_get_reference_value(env, cb, &fn) == napi_ok && fn) {
    if (err) {
      napi_create_string_utf8(env, uv_err_name(-err), NAPI_AUTO_LENGTH, &argv[0]);
      napi_create_string_utf8(env, strerror(err), NAPI_AUTO_LENGTH, &argv[1]);
    } else {
      napi_get_undefined(env, &argv[0]);
      napi_get_undefined(env, &argv[1]);
    }
    argv[2] = ns_value(env, p->start, p->connected);
    argv[3] = ns_value(env, p->start, err ? 0 : closed_at);
    napi_get_global(env, &recv);
    napi_make_callback(env, tcp_async_context(env), recv, fn, 4, argv, &res);
  }
  napi_delete_reference(env, cb);
  napi_close_handle_scope(env, scope);
}

// The handshake completed: note when, send our FIN and wait for the peer's.
static void tcp_connected(tcp_probe_t *p, uint64_t now) {
  p->connected = now;
  p->state = PROBE_CLOSING;
  shutdown(p->fd, SHUT_WR);
  uv_poll_start(&p->poll, UV_READABLE | UV_DISCONNECT, tcp_on_poll);
}

static void tcp_on_poll(uv_poll_t *h, int status, int events) {
  (void)events;
  tcp_probe_t *p = (tcp_probe_t *)h->data;
  uint64_t now = uv_hrtime();
  if (p->state == PROBE_CONNECTING) {
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0) err = errno;
    if (!err && status < 0) err = -status;
    if (err) {
      tcp_finish(p, err, 0);
      return;
    }
    tcp_connected(p, now);
    return;
  }
  if (p->state != PROBE_CLOSING) return;
  char buf[512];
  for (int i = 0; i < 64; i++) {  // data the peer sends before its FIN is read and dropped
    ssize_t n = read(p->fd, buf, sizeof buf);
    if (n > 0) continue;
    // the peer's FIN, or its reset once it has read our FIN (an svc agent's listener resets rather than
    // closing, so neither end keeps a TIME_WAIT socket or a 120 s TIME_WAIT conntrack entry): the connection
    // has ended at the peer's word either way
    if (n == 0 || errno == ECONNRESET) {
      tcp_finish(p, 0, now);
      return;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return;
    tcp_finish(p, errno, 0);  // connected, but the connection broke otherwise
    return;
  }
}

// tcpProbe(family, address, port, onDone) -> handle. Throws for an invalid address and for errors the
// connect call itself reports (ENETUNREACH...); the rest reach onDone(code, message, connectNs, totalNs).
static napi_value js_tcp_probe(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 4) return throw_type(env, "tcpProbe(family, address, port, onDone)");
  int32_t family, port;
  napi_get_value_int32(env, argv[0], &family);
  napi_get_value_int32(env, argv[2], &port);
  if (family != 4 && family != 6) return throw_type(env, "family must be 4 or 6");
  if (port < 1 || port > 65535) return throw_type(env, "port must be 1-65535");
  char a[80];
  struct sockaddr_storage ss;
  socklen_t sl;
  if (!get_str(env, argv[1], a, sizeof a) || !make_addr(family, a, port, &ss, &sl))
    return throw_type(env, "invalid address");
  int fd = socket(family == 4 ? AF_INET : AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return throw_errno(env, errno, "socket");
  // close() resets a connection still open (timeout, abort): no orphaned FIN_WAIT socket ending in TIME_WAIT
  struct linger lg = {1, 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
  uint64_t start = uv_hrtime();
  int r;
  do r = connect(fd, (struct sockaddr *)&ss, sl);
  while (r < 0 && errno == EINTR);
  if (r < 0 && errno != EINPROGRESS) {
    int e = errno;
    close(fd);
    return throw_errno(env, e, "connect");
  }
  tcp_probe_t *p = calloc(1, sizeof *p);
  if (!p) {
    close(fd);
    return throw_errno(env, ENOMEM, "tcpProbe");
  }
  p->fd = fd;
  p->start = start;
  p->env = env;
  p->state = PROBE_CONNECTING;
  uv_loop_t *loop;
  napi_get_uv_event_loop(env, &loop);
  int uerr = uv_poll_init(loop, &p->poll, fd);
  if (uerr < 0) {
    free(p);
    close(fd);
    return throw_errno(env, -uerr, "uv_poll_init");
  }
  p->poll.data = p;
  napi_value obj;
  napi_create_object(env, &obj);
  napi_wrap(env, obj, p, tcp_finalize, NULL, NULL);
  napi_create_reference(env, obj, 1, &p->self);
  napi_create_reference(env, argv[3], 1, &p->cb);
  // Connected already (loopback completes the handshake inside connect)? Then go straight to closing.
  struct pollfd pfd = {fd, POLLOUT, 0};
  int err = 0;
  socklen_t len = sizeof err;
  if (r == 0 || (poll(&pfd, 1, 0) == 1 && pfd.revents == POLLOUT && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && !err))
    tcp_connected(p, uv_hrtime());
  else
    uv_poll_start(&p->poll, UV_WRITABLE, tcp_on_poll);  // errors, too, are reported from the loop
  return obj;
}

// tcpProbeAbort(handle) -> ns from start to connect, or -1 when it had not connected (or had ended already).
// The socket closes now and onDone is not called.
static napi_value js_tcp_probe_abort(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  void *data = NULL;
  if (argc < 1 || napi_unwrap(env, argv[0], &data) != napi_ok || !data)
    return throw_type(env, "tcpProbeAbort(handle)");
  tcp_probe_t *p = (tcp_probe_t *)data;
  napi_value v;
  if (p->state == PROBE_DONE) {
    napi_create_double(env, -1, &v);
    return v;
  }
  v = ns_value(env, p->start, p->connected);
  tcp_release(p);
  return v;
}

void register_tcp_probe(napi_env env, napi_value exports) {
  export_function(env, exports, "tcpProbe", js_tcp_probe);
  export_function(env, exports, "tcpProbeAbort", js_tcp_probe_abort);
}
