// svc_native: the socket calls Node's dgram lacks (ping sockets, raw sockets, IP_RECVERR error queue,
// PMTU discovery modes, per-send TTL, IP_PKTINFO source selection, IP_MTU). Plain N-API (C), libuv
// integration through uv_poll_t on the socket fd (no threads), or, for sockets opened with watch: false,
// reads on demand (drain) when the caller is awake anyway; kernel receive timestamps keep RTTs exact either way.
// The tcp probe lives in tcp_probe.c.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/errqueue.h>
#include <linux/icmp.h>
extern unsigned int if_nametoindex(const char *ifname);  // <net/if.h> clashes with <linux/if.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <node_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "svc_native.h"

#define RECV_BUF 70000
#define MAX_QUEUED_NS (600 * 1000000000LL)
#define KIND_UDP 0
#define KIND_ICMP_DGRAM 1
#define KIND_RAW 2

typedef struct {
  int fd;
  int family;
  int kind;
  int protocol;
  int closing;
  uint64_t sent_at; /* uv_hrtime() right before the last sendmsg (process.hrtime.bigint()'s clock) */
  int pktinfo;
  int watch;   /* reception on the loop (uv_poll) rather than by drain() */
  int in_js;   /* inside drain(): callbacks are plain calls, not callbacks from the loop */
  int threw;   /* a callback threw during drain(): stop and let the exception reach drain's caller */
  napi_env env;
  uv_poll_t poll;
  napi_ref self;     // strong while open, so the wrapper outlives the poll handle
  napi_ref on_msg;   // (data, address, port, localAddress, ifindex, ttl, receivedAt)
  napi_ref on_err;   // (origin, type, code, info, errno, offender, address, port, data)
  napi_async_context actx;
  unsigned char *buf;
} sock_t;

napi_value throw_errno(napi_env env, int err, const char *what) {
  char msg[256];
  snprintf(msg, sizeof msg, "%s: %s", what, strerror(err));
  napi_value code, m, e, n;
  napi_create_string_utf8(env, uv_err_name(-err), NAPI_AUTO_LENGTH, &code);
  napi_create_string_utf8(env, msg, NAPI_AUTO_LENGTH, &m);
  napi_create_error(env, code, m, &e);
  napi_create_int32(env, err, &n);
  napi_set_named_property(env, e, "errno", n);
  napi_throw(env, e);
  return NULL;
}

napi_value throw_type(napi_env env, const char *msg) {
  napi_throw_type_error(env, "ERR_INVALID_ARG", msg);
  return NULL;
}

static int get_prop(napi_env env, napi_value obj, const char *name, napi_value *out) {
  bool has = false;
  if (napi_has_named_property(env, obj, name, &has) != napi_ok || !has) return 0;
  napi_get_named_property(env, obj, name, out);
  napi_valuetype t;
  napi_typeof(env, *out, &t);
  return t != napi_undefined && t != napi_null;
}

static int get_int_prop(napi_env env, napi_value obj, const char *name, int dflt) {
  napi_value v;
  int32_t r = dflt;
  if (get_prop(env, obj, name, &v)) napi_get_value_int32(env, v, &r);
  return r;
}

static int get_bool_prop(napi_env env, napi_value obj, const char *name) {
  napi_value v;
  bool r = false;
  if (get_prop(env, obj, name, &v)) napi_get_value_bool(env, v, &r);
  return r ? 1 : 0;
}

int get_str(napi_env env, napi_value v, char *out, size_t n) {
  size_t len;
  napi_valuetype t;
  napi_typeof(env, v, &t);
  if (t != napi_string) return 0;
  return napi_get_value_string_utf8(env, v, out, n, &len) == napi_ok;
}

// Parse "address" for family into ss; 0 on failure.
int make_addr(int family, const char *addr, int port, struct sockaddr_storage *ss, socklen_t *len) {
  memset(ss, 0, sizeof *ss);
  if (family == 4) {
    struct sockaddr_in *s = (struct sockaddr_in *)ss;
    s->sin_family = AF_INET;
    s->sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, addr, &s->sin_addr) != 1) return 0;
    *len = sizeof *s;
  } else {
    struct sockaddr_in6 *s = (struct sockaddr_in6 *)ss;
    s->sin6_family = AF_INET6;
    s->sin6_port = htons((uint16_t)port);
    char tmp[INET6_ADDRSTRLEN + 20];
    snprintf(tmp, sizeof tmp, "%s", addr);
    char *pct = strchr(tmp, '%');
    if (pct) {
      *pct = 0;
      s->sin6_scope_id = if_nametoindex(pct + 1);
      if (!s->sin6_scope_id) s->sin6_scope_id = (uint32_t)atoi(pct + 1);
    }
    if (inet_pton(AF_INET6, tmp, &s->sin6_addr) != 1) return 0;
    *len = sizeof *s;
  }
  return 1;
}

static napi_value addr_value(napi_env env, const struct sockaddr *sa, int *port) {
  char s[INET6_ADDRSTRLEN] = "";
  *port = 0;
  if (sa->sa_family == AF_INET) {
    const struct sockaddr_in *a = (const struct sockaddr_in *)sa;
    inet_ntop(AF_INET, &a->sin_addr, s, sizeof s);
    *port = ntohs(a->sin_port);
  } else if (sa->sa_family == AF_INET6) {
    const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)sa;
    inet_ntop(AF_INET6, &a->sin6_addr, s, sizeof s);
    *port = ntohs(a->sin6_port);
  } else {
    napi_value u;
    napi_get_undefined(env, &u);
    return u;
  }
  napi_value v;
  napi_create_string_utf8(env, s, NAPI_AUTO_LENGTH, &v);
  return v;
}

static napi_value str_or_undef(napi_env env, int family, const void *raw, int present) {
  napi_value v;
  if (!present) {
    napi_get_undefined(env, &v);
    return v;
  }
  char s[INET6_ADDRSTRLEN] = "";
  inet_ntop(family, raw, s, sizeof s);
  napi_create_string_utf8(env, s, NAPI_AUTO_LENGTH, &v);
  return v;
}

static napi_value int_value(napi_env env, int64_t x) {
  napi_value v;
  napi_create_int64(env, x, &v);
  return v;
}

static void call_cb(sock_t *s, napi_ref ref, size_t argc, napi_value *argv) {
  napi_env env = s->env;
  napi_value fn, recv, res;
  if (!ref || napi_get_reference_value(env, ref, &fn) != napi_ok || !fn) return;
  napi_get_global(env, &recv);  // napi_make_callback wants an object receiver
  if (!s->in_js) {
    napi_make_callback(env, s->actx, recv, fn, argc, argv, &res);
    return;
  }
  // called from JavaScript (drain): a plain call; an exception ends the drain and propagates
  if (napi_call_function(env, recv, fn, argc, argv, &res) != napi_ok) s->threw = 1;
}

// A receive into the socket's buffer: source address into `from` (zeroed), ancillary data into `ctrl`.
static void recv_msg_init(sock_t *s, struct msghdr *msg, struct iovec *iov, struct sockaddr_storage *from,
                          char *ctrl, size_t ctrl_len) {
  memset(from, 0, sizeof *from);
  memset(msg, 0, sizeof *msg);
  iov->iov_base = s->buf;
  iov->iov_len = RECV_BUF;
  msg->msg_name = from;
  msg->msg_namelen = sizeof *from;
  msg->msg_iov = iov;
  msg->msg_iovlen = 1;
  msg->msg_control = ctrl;
  msg->msg_controllen = ctrl_len;
}

// Drains the error queue: ICMP errors and local errors (EMSGSIZE ...). Returns the entries read.
static int drain_errqueue(sock_t *s) {
  int count = 0;
  for (;;) {
    if (s->closing || s->threw) return count;
    struct sockaddr_storage from;
    char ctrl[512];
    struct iovec iov;
    struct msghdr msg;
    recv_msg_init(s, &msg, &iov, &from, ctrl, sizeof ctrl);
    ssize_t n = recvmsg(s->fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT);
    if (n < 0) return count;
    count++;
    struct sock_extended_err *ee = NULL;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
      if ((c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
          (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR))
        ee = (struct sock_extended_err *)CMSG_DATA(c);
    }
    if (!ee) continue;
    napi_handle_scope scope;
    napi_open_handle_scope(s->env, &scope);
    napi_env env = s->env;
    const char *origin = ee->ee_origin == SO_EE_ORIGIN_ICMP    ? "icmp"
                         : ee->ee_origin == SO_EE_ORIGIN_ICMP6 ? "icmp6"
                         : ee->ee_origin == SO_EE_ORIGIN_LOCAL ? "local"
                                                               : "other";
    napi_value argv[9];
    napi_create_string_utf8(env, origin, NAPI_AUTO_LENGTH, &argv[0]);
    argv[1] = int_value(env, ee->ee_type);
    argv[2] = int_value(env, ee->ee_code);
    argv[3] = int_value(env, ee->ee_info);
    argv[4] = int_value(env, ee->ee_errno);
    struct sockaddr *off = SO_EE_OFFENDER(ee);
    int p;
    if (off->sa_family == AF_INET || off->sa_family == AF_INET6)
      argv[5] = addr_value(env, off, &p);
    else
      napi_get_undefined(env, &argv[5]);
    int port = 0;
    argv[6] = addr_value(env, (struct sockaddr *)&from, &port);
    argv[7] = int_value(env, port);
    void *data;
    napi_create_buffer_copy(env, (size_t)n, s->buf, &data, &argv[8]);
    call_cb(s, s->on_err, 9, argv);
    napi_close_handle_scope(env, scope);
  }
}

// Reads the pending datagrams (at most 4096). Returns how many were read.
static int drain_messages(sock_t *s) {
  int count = 0;
  for (int budget = 0; budget < 4096; budget++) {
    if (s->closing || s->threw) return count;
    struct sockaddr_storage from;
    char ctrl[512];
    struct iovec iov;
    struct msghdr msg;
    recv_msg_init(s, &msg, &iov, &from, ctrl, sizeof ctrl);
    ssize_t n = recvmsg(s->fd, &msg, MSG_DONTWAIT);
    /* Wall clock first, then the monotonic clock: a preemption between the two reads can only move receivedAt
       later, never before the datagram's arrival (read the other way round, a loaded host once put a reply
       before its own request: a negative RTT). */
    struct timespec rts;
    clock_gettime(CLOCK_REALTIME, &rts);
    uint64_t now = uv_hrtime();
    if (n < 0) {
      if (errno == EINTR) continue;
      return count;  // EAGAIN, or an error already reported through the error queue
    }
    count++;
    int ttl = -1, ifindex = -1, have_local = 0;
    unsigned char local[16];
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
        /* The kernel's receive time (CLOCK_REALTIME), moved onto uv_hrtime's monotonic clock: the time this
           process took to wake up and read the socket is not network time (iputils ping does the same). A
           socket read by drain() may hold a datagram for as long as its owner's deadlines allow (seconds);
           a wait beyond MAX_QUEUED_NS is taken for a step of the wall clock and not corrected. */
        struct timespec kts;
        memcpy(&kts, CMSG_DATA(c), sizeof kts);
        int64_t waited = ((int64_t)rts.tv_sec - (int64_t)kts.tv_sec) * 1000000000LL +
                         ((int64_t)rts.tv_nsec - (int64_t)kts.tv_nsec);
        if (waited > 0 && waited < MAX_QUEUED_NS && (uint64_t)waited < now) now -= (uint64_t)waited;
      } else if (c->cmsg_level == SOL_IP && c->cmsg_type == IP_TTL) {
        memcpy(&ttl, CMSG_DATA(c), sizeof ttl);
      } else if (c->cmsg_level == SOL_IP && c->cmsg_type == IP_PKTINFO) {
        struct in_pktinfo pi;
        memcpy(&pi, CMSG_DATA(c), sizeof pi);
        memcpy(local, &pi.ipi_addr, 4);
        ifindex = pi.ipi_ifindex;
        have_local = 1;
      } else if (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_HOPLIMIT) {
        memcpy(&ttl, CMSG_DATA(c), sizeof ttl);
      } else if (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
        struct in6_pktinfo pi;
        memcpy(&pi, CMSG_DATA(c), sizeof pi);
        memcpy(local, &pi.ipi6_addr, 16);
        ifindex = (int)pi.ipi6_ifindex;
        have_local = 1;
      }
    }
    unsigned char *data = s->buf;
    size_t len = (size_t)n;
    if (s->kind == KIND_RAW && s->family == 4) {
      // IPv4 raw sockets deliver the IP header: strip it, keep its TTL and destination.
      if (len < 20) continue;
      size_t ihl = (size_t)(data[0] & 0x0f) * 4;
      if (ihl < 20 || len < ihl) continue;
      ttl = data[8];
      if (!have_local) {
        memcpy(local, data + 16, 4);
        have_local = 1;
      }
      data += ihl;
      len -= ihl;
    }
    napi_env env = s->env;
    napi_handle_scope scope;
    napi_open_handle_scope(env, &scope);
    napi_value argv[7];
    void *d;
    napi_create_buffer_copy(env, len, data, &d, &argv[0]);
    int port = 0;
    argv[1] = addr_value(env, (struct sockaddr *)&from, &port);
    argv[2] = int_value(env, port);
    argv[3] = str_or_undef(env, s->family == 4 ? AF_INET : AF_INET6, local, have_local);
    argv[4] = int_value(env, ifindex);
    argv[5] = int_value(env, ttl);
    napi_create_bigint_uint64(env, now, &argv[6]);
    call_cb(s, s->on_msg, 7, argv);
    napi_close_handle_scope(env, scope);
  }
  return count;
}

static void on_poll(uv_poll_t *h, int status, int events) {
  sock_t *s = (sock_t *)h->data;
  if (s->closing) return;
  (void)events;
  drain_errqueue(s);
  drain_messages(s);
  /* libuv stops a poll handle when the socket reports an error (POLLERR: an ICMP error queued by IP_RECVERR).
     The error queue is drained now, so keep polling; otherwise the socket would go silent after one error. */
  if (status < 0 && !s->closing) uv_poll_start(&s->poll, UV_READABLE, on_poll);
}

static void on_poll_closed(uv_handle_t *h) {
  sock_t *s = (sock_t *)h->data;
  if (s->fd >= 0) close(s->fd);
  s->fd = -1;
  if (s->on_msg) napi_delete_reference(s->env, s->on_msg);
  if (s->on_err) napi_delete_reference(s->env, s->on_err);
  s->on_msg = s->on_err = NULL;
  if (s->self) {
    napi_ref self = s->self;
    s->self = NULL;
    napi_delete_reference(s->env, self);  // the finalizer may now free s
  }
}

static void finalize_sock(napi_env env, void *data, void *hint) {
  (void)hint;
  sock_t *s = (sock_t *)data;
  if (s->actx) napi_async_destroy(env, s->actx);
  free(s->buf);
  free(s);
}

static sock_t *unwrap(napi_env env, napi_value v) {
  void *p = NULL;
  if (napi_unwrap(env, v, &p) != napi_ok) return NULL;
  return (sock_t *)p;
}

static int set_int_opt(int fd, int level, int name, int val) {
  return setsockopt(fd, level, name, &val, sizeof val);
}

// open(family: 4|6, kind: 0 udp|1 icmp-dgram|2 raw, opts, onMessage, onError) -> handle
static napi_value js_open(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 5) return throw_type(env, "open(family, kind, opts, onMessage, onError)");
  int32_t family, kind;
  napi_get_value_int32(env, argv[0], &family);
  napi_get_value_int32(env, argv[1], &kind);
  if (family != 4 && family != 6) return throw_type(env, "family must be 4 or 6");
  napi_value opts = argv[2];
  int af = family == 4 ? AF_INET : AF_INET6;
  int protocol = get_int_prop(env, opts, "protocol", -1);
  int type, proto;
  if (kind == KIND_UDP) {
    type = SOCK_DGRAM;
    proto = IPPROTO_UDP;
  } else if (kind == KIND_ICMP_DGRAM) {
    type = SOCK_DGRAM;
    proto = family == 4 ? IPPROTO_ICMP : IPPROTO_ICMPV6;
  } else if (kind == KIND_RAW) {
    type = SOCK_RAW;
    proto = protocol >= 0 ? protocol : (family == 4 ? IPPROTO_ICMP : IPPROTO_ICMPV6);
  } else {
    return throw_type(env, "unknown kind");
  }
  int fd = socket(af, type | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);
  if (fd < 0) return throw_errno(env, errno, "socket");
  int err = 0;
  const char *what = "setsockopt";
  if (family == 6 && get_bool_prop(env, opts, "v6Only")) err = set_int_opt(fd, SOL_IPV6, IPV6_V6ONLY, 1);
  /* kernel receive timestamps for every datagram: receivedAt is the arrival time, not the read time */
  if (!err) err = set_int_opt(fd, SOL_SOCKET, SO_TIMESTAMPNS, 1);
  if (!err && get_bool_prop(env, opts, "recvErr"))
    err = family == 4 ? set_int_opt(fd, SOL_IP, IP_RECVERR, 1) : set_int_opt(fd, SOL_IPV6, IPV6_RECVERR, 1);
  if (!err && get_bool_prop(env, opts, "pktInfo"))
    err = family == 4 ? set_int_opt(fd, SOL_IP, IP_PKTINFO, 1) : set_int_opt(fd, SOL_IPV6, IPV6_RECVPKTINFO, 1);
  if (!err && get_bool_prop(env, opts, "recvTtl"))
    err = family == 4 ? set_int_opt(fd, SOL_IP, IP_RECVTTL, 1) : set_int_opt(fd, SOL_IPV6, IPV6_RECVHOPLIMIT, 1);
  int rcvbuf = get_int_prop(env, opts, "recvBuffer", 0);
  if (!err && rcvbuf > 0) {
    /* past net.core.rmem_max when privileged (SO_RCVBUFFORCE), else up to it */
    if (set_int_opt(fd, SOL_SOCKET, SO_RCVBUFFORCE, rcvbuf) < 0) err = set_int_opt(fd, SOL_SOCKET, SO_RCVBUF, rcvbuf);
  }
  if (!err && get_bool_prop(env, opts, "broadcast") && family == 4)
    err = set_int_opt(fd, SOL_SOCKET, SO_BROADCAST, 1);
  int pmtu = get_int_prop(env, opts, "pmtu", -1);  // 0 dont, 1 want, 2 do, 3 probe
  if (!err && pmtu >= 0) {
    if (family == 4) {
      err = set_int_opt(fd, SOL_IP, IP_MTU_DISCOVER, pmtu);
    } else {
      err = set_int_opt(fd, SOL_IPV6, IPV6_MTU_DISCOVER, pmtu);
      if (!err) err = set_int_opt(fd, SOL_IPV6, IPV6_DONTFRAG, pmtu >= 2 ? 1 : 0);
    }
  }
  int ckoff = get_int_prop(env, opts, "checksumOffset", -1);
  if (!err && ckoff >= 0 && family == 6 && kind == KIND_RAW) err = set_int_opt(fd, SOL_IPV6, IPV6_CHECKSUM, ckoff);
  if (!err && kind == KIND_RAW) {
    // Only pass the ICMP types a prober or tracer cares about.
    if (family == 4 && proto == IPPROTO_ICMP) {
      struct icmp_filter f;
      f.data = ~((1U << ICMP_ECHOREPLY) | (1U << ICMP_DEST_UNREACH) | (1U << ICMP_TIME_EXCEEDED) |
                 (1U << ICMP_PARAMETERPROB));
      err = setsockopt(fd, SOL_RAW, ICMP_FILTER, &f, sizeof f);
    } else if (family == 6 && proto == IPPROTO_ICMPV6) {
      struct icmp6_filter f;
      ICMP6_FILTER_SETBLOCKALL(&f);
      ICMP6_FILTER_SETPASS(ICMP6_ECHO_REPLY, &f);
      ICMP6_FILTER_SETPASS(ICMP6_DST_UNREACH, &f);
      ICMP6_FILTER_SETPASS(ICMP6_PACKET_TOO_BIG, &f);
      ICMP6_FILTER_SETPASS(ICMP6_TIME_EXCEEDED, &f);
      ICMP6_FILTER_SETPASS(ICMP6_PARAM_PROB, &f);
      err = setsockopt(fd, IPPROTO_ICMPV6, ICMP6_FILTER, &f, sizeof f);
    }
  }
  napi_value bindv;
  if (!err && get_prop(env, opts, "bindAddress", &bindv)) {
    char a[INET6_ADDRSTRLEN + 20];
    struct sockaddr_storage ss;
    socklen_t sl;
    if (!get_str(env, bindv, a, sizeof a) || !make_addr(family, a, get_int_prop(env, opts, "bindPort", 0), &ss, &sl)) {
      close(fd);
      return throw_type(env, "invalid bind address");
    }
    what = "bind";
    err = bind(fd, (struct sockaddr *)&ss, sl);
  }
  if (err) {
    int e = errno;
    close(fd);
    return throw_errno(env, e, what);
  }
  sock_t *s = calloc(1, sizeof *s);
  s->buf = malloc(RECV_BUF);
  s->fd = fd;
  s->family = family;
  s->kind = kind;
  s->protocol = proto;
  s->env = env;
  napi_value watchv;
  s->watch = !get_prop(env, opts, "watch", &watchv) || get_bool_prop(env, opts, "watch");
  napi_value obj, name;
  napi_create_object(env, &obj);
  napi_wrap(env, obj, s, finalize_sock, NULL, NULL);
  napi_create_reference(env, obj, 1, &s->self);
  napi_create_reference(env, argv[3], 1, &s->on_msg);
  napi_create_reference(env, argv[4], 1, &s->on_err);
  napi_create_string_utf8(env, "svc_native_socket", NAPI_AUTO_LENGTH, &name);
  napi_async_init(env, obj, name, &s->actx);
  uv_loop_t *loop;
  napi_get_uv_event_loop(env, &loop);
  uv_poll_init(loop, &s->poll, fd);
  s->poll.data = s;
  if (s->watch) uv_poll_start(&s->poll, UV_READABLE, on_poll);
  return obj;
}

/* drain(h) -> datagrams and error-queue entries read now (callbacks called before it returns). For sockets
   opened with watch: false, whose owner reads when it is awake anyway instead of being woken per datagram. */
static napi_value js_drain(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  sock_t *s = argc >= 1 ? unwrap(env, argv[0]) : NULL;
  if (!s) return throw_type(env, "drain(handle)");
  if (s->closing) return int_value(env, 0);
  s->in_js = 1;
  s->threw = 0;
  int n = drain_errqueue(s);
  n += drain_messages(s);
  s->in_js = 0;
  if (s->threw) return NULL;  // the callback's exception is pending
  return int_value(env, n);
}

/* Errors an ICMP message can leave pending on a socket (icmp_err_convert, icmpv6_err_convert). */
static int is_async_icmp_errno(int e) {
  switch (e) {
    case ECONNREFUSED:
    case EHOSTUNREACH:
    case ENETUNREACH:
    case EHOSTDOWN:
    case ENOPROTOOPT:
    case EACCES:
    case EMSGSIZE:
    case EPROTO:
    case EOPNOTSUPP:
      return 1;
    default:
      return 0;
  }
}

// send(h, data, address, port, ttl (-1 default), sourceAddress|undefined) -> bytes sent; throws on local error
static napi_value js_send(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  sock_t *s = argc >= 6 ? unwrap(env, argv[0]) : NULL;
  if (!s) return throw_type(env, "send(handle, data, address, port, ttl, source)");
  if (s->closing) return throw_errno(env, EBADF, "send");
  void *data;
  size_t len;
  if (napi_get_buffer_info(env, argv[1], &data, &len) != napi_ok) return throw_type(env, "data must be a Buffer");
  char a[INET6_ADDRSTRLEN + 20];
  int32_t port, ttl;
  napi_get_value_int32(env, argv[3], &port);
  napi_get_value_int32(env, argv[4], &ttl);
  if (s->kind != KIND_UDP) port = 0;
  struct sockaddr_storage ss;
  socklen_t sl;
  if (!get_str(env, argv[2], a, sizeof a) || !make_addr(s->family, a, port, &ss, &sl))
    return throw_type(env, "invalid destination address");
  char ctrl[256];
  memset(ctrl, 0, sizeof ctrl);
  struct iovec iov = {data, len};
  struct msghdr msg = {0};
  msg.msg_name = &ss;
  msg.msg_namelen = sl;
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = ctrl;
  msg.msg_controllen = sizeof ctrl;
  size_t used = 0;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (ttl >= 0) {
    c->cmsg_level = s->family == 4 ? SOL_IP : SOL_IPV6;
    c->cmsg_type = s->family == 4 ? IP_TTL : IPV6_HOPLIMIT;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &ttl, sizeof ttl);
    used += CMSG_SPACE(sizeof(int));
    c = (struct cmsghdr *)(ctrl + used);
  }
  if (get_str(env, argv[5], a, sizeof a)) {
    if (s->family == 4) {
      struct in_pktinfo pi;
      memset(&pi, 0, sizeof pi);
      if (inet_pton(AF_INET, a, &pi.ipi_spec_dst) != 1) return throw_type(env, "invalid source address");
      c->cmsg_level = SOL_IP;
      c->cmsg_type = IP_PKTINFO;
      c->cmsg_len = CMSG_LEN(sizeof pi);
      memcpy(CMSG_DATA(c), &pi, sizeof pi);
      used += CMSG_SPACE(sizeof pi);
    } else {
      struct in6_pktinfo pi;
      memset(&pi, 0, sizeof pi);
      char *pct = strchr(a, '%');  // "addr%ifindex" or "addr%ifname" pins the interface (link-local)
      if (pct) {
        *pct = 0;
        pi.ipi6_ifindex = if_nametoindex(pct + 1);
        if (!pi.ipi6_ifindex) pi.ipi6_ifindex = (unsigned)atoi(pct + 1);
      }
      if (inet_pton(AF_INET6, a, &pi.ipi6_addr) != 1) return throw_type(env, "invalid source address");
      c->cmsg_level = SOL_IPV6;
      c->cmsg_type = IPV6_PKTINFO;
      c->cmsg_len = CMSG_LEN(sizeof pi);
      memcpy(CMSG_DATA(c), &pi, sizeof pi);
      used += CMSG_SPACE(sizeof pi);
    }
  }
  msg.msg_controllen = used;
  if (!used) msg.msg_control = NULL;
  ssize_t n;
  int retried = 0;
  for (;;) {
    do {
      s->sent_at = uv_hrtime();
      n = sendmsg(s->fd, &msg, MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    /* An ICMP error about an earlier datagram (port unreachable from a peer that is down...) is kept as the
       socket's pending error, and the kernel reports it on the next send, to whatever destination, instead of
       sending (sock_alloc_send_pskb). Reporting it clears it: send once more. With IP_RECVERR the error also
       sits in the error queue and reaches the run it is about; a send's own error comes back again. */
    if (n < 0 && !retried && is_async_icmp_errno(errno)) {
      retried = 1;
      continue;
    }
    break;
  }
  if (n < 0) return throw_errno(env, errno, "sendmsg");
  return int_value(env, n);
}

/* The send time of the last datagram: taken in C right before sendmsg, so an RTT measured from it leaves out
   the JavaScript and N-API work of the send call (tens of microseconds on loopback). */
static napi_value js_last_sent_at(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  sock_t *s = argc >= 1 ? unwrap(env, argv[0]) : NULL;
  napi_value v;
  napi_create_bigint_uint64(env, s ? s->sent_at : 0, &v);
  return v;
}

static napi_value js_connect(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  sock_t *s = argc >= 3 ? unwrap(env, argv[0]) : NULL;
  if (!s) return throw_type(env, "connect(handle, address, port)");
  if (s->closing) return throw_errno(env, EBADF, "connect");
  char a[INET6_ADDRSTRLEN + 20];
  int32_t port;
  napi_get_value_int32(env, argv[2], &port);
  struct sockaddr_storage ss;
  socklen_t sl;
  if (!get_str(env, argv[1], a, sizeof a) || !make_addr(s->family, a, port, &ss, &sl))
    return throw_type(env, "invalid address");
  if (connect(s->fd, (struct sockaddr *)&ss, sl) < 0) return throw_errno(env, errno, "connect");
  return NULL;
}

static napi_value js_local_port(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  sock_t *s = argc >= 1 ? unwrap(env, argv[0]) : NULL;
  if (!s || s->fd < 0) return int_value(env, -1);
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  if (getsockname(s->fd, (struct sockaddr *)&ss, &sl) < 0) return int_value(env, -1);
  int port;
  addr_value(env, (struct sockaddr *)&ss, &port);
  return int_value(env, port);
}

static napi_value js_mtu(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  sock_t *s = argc >= 1 ? unwrap(env, argv[0]) : NULL;
  if (!s || s->fd < 0) return int_value(env, -1);
  int mtu = -1;
  socklen_t l = sizeof mtu;
  int r = s->family == 4 ? getsockopt(s->fd, SOL_IP, IP_MTU, &mtu, &l) : getsockopt(s->fd, SOL_IPV6, IPV6_MTU, &mtu, &l);
  return int_value(env, r < 0 ? -1 : mtu);
}

static napi_value js_ref(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  sock_t *s = argc >= 2 ? unwrap(env, argv[0]) : NULL;
  if (!s || s->closing) return NULL;
  bool on;
  napi_get_value_bool(env, argv[1], &on);
  if (on)
    uv_ref((uv_handle_t *)&s->poll);
  else
    uv_unref((uv_handle_t *)&s->poll);
  return NULL;
}

static napi_value js_close(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  sock_t *s = argc >= 1 ? unwrap(env, argv[0]) : NULL;
  if (!s || s->closing) return NULL;
  s->closing = 1;
  uv_poll_stop(&s->poll);
  // uv_close deregisters the fd from epoll synchronously (only the callback is deferred), so the fd can be
  // closed now: the port is free when close() returns.
  uv_close((uv_handle_t *)&s->poll, on_poll_closed);
  close(s->fd);
  s->fd = -1;
  return NULL;
}

// interfaceMtu(family, address) -> MTU of the route toward address (UDP connect + IP_MTU), or -errno
static napi_value js_interface_mtu(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int32_t family;
  napi_get_value_int32(env, argv[0], &family);
  char a[INET6_ADDRSTRLEN + 20];
  struct sockaddr_storage ss;
  socklen_t sl;
  if (!get_str(env, argv[1], a, sizeof a) || !make_addr(family, a, 9, &ss, &sl))
    return throw_type(env, "invalid address");
  int fd = socket(family == 4 ? AF_INET : AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return throw_errno(env, errno, "socket");
  int mtu = -1;
  socklen_t l = sizeof mtu;
  int r = connect(fd, (struct sockaddr *)&ss, sl);
  if (r == 0)
    r = family == 4 ? getsockopt(fd, SOL_IP, IP_MTU, &mtu, &l) : getsockopt(fd, SOL_IPV6, IPV6_MTU, &mtu, &l);
  int e = errno;
  close(fd);
  if (r < 0) return throw_errno(env, e, "interfaceMtu");
  return int_value(env, mtu);
}

// icmpDgramAllowed(family) -> whether an unprivileged ICMP (ping) socket can be opened
static napi_value js_icmp_allowed(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int32_t family;
  napi_get_value_int32(env, argv[0], &family);
  int fd = socket(family == 4 ? AF_INET : AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, family == 4 ? IPPROTO_ICMP : IPPROTO_ICMPV6);
  napi_value v;
  napi_get_boolean(env, fd >= 0, &v);
  if (fd >= 0) close(fd);
  return v;
}

void export_function(napi_env env, napi_value exports, const char *name, napi_callback fn) {
  napi_value f;
  napi_create_function(env, name, NAPI_AUTO_LENGTH, fn, NULL, &f);
  napi_set_named_property(env, exports, name, f);
}

#define EXPORT(name, fn) export_function(env, exports, name, fn)

static napi_value init(napi_env env, napi_value exports) {
  EXPORT("open", js_open);
  EXPORT("send", js_send);
  EXPORT("drain", js_drain);
  EXPORT("lastSentAt", js_last_sent_at);
  EXPORT("connect", js_connect);
  EXPORT("localPort", js_local_port);
  EXPORT("mtu", js_mtu);
  EXPORT("ref", js_ref);
  EXPORT("close", js_close);
  EXPORT("interfaceMtu", js_interface_mtu);
  EXPORT("icmpDgramAllowed", js_icmp_allowed);
  register_tcp_probe(env, exports);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
