// Process memory tuning for the agent (docs/decisions.md, "Memory (agent)"): glibc malloc settings, and giving
// back the pages of the node executable that only start-up read.
#include <errno.h>
#include <limits.h>
#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "svc_native.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

// tuneMalloc(arenaMax, mmapThreshold): caps the number of malloc arenas (M_ARENA_MAX; arenas that exist stay,
// threads without one share the capped set) and serves allocations of mmapThreshold bytes or more with their own
// mapping, returned to the system on free (M_MMAP_THRESHOLD). Returns false where malloc is not glibc's.
static napi_value js_tune_malloc(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int32_t arena_max = 0, mmap_threshold = 0;
  if (argc < 2 || napi_get_value_int32(env, argv[0], &arena_max) != napi_ok ||
      napi_get_value_int32(env, argv[1], &mmap_threshold) != napi_ok || arena_max < 1 || mmap_threshold < 4096) {
    return throw_type(env, "tuneMalloc(arenaMax, mmapThreshold): arenaMax >= 1 and mmapThreshold >= 4096");
  }
  bool ok = false;
#ifdef __GLIBC__
  ok = mallopt(M_ARENA_MAX, arena_max) == 1 && mallopt(M_MMAP_THRESHOLD, mmap_threshold) == 1;
#endif
  napi_value v;
  napi_get_boolean(env, ok, &v);
  return v;
}

struct mapping {
  uintptr_t start, end;
  char perms[5];
  char path[PATH_MAX];
  long rss_kb, anon_kb;
};

struct range {
  uintptr_t start, end;
  long rss_kb;
};

#define MAX_RANGES 64

// A mapping whose pages can all be dropped and read back unchanged: the executable, private, not writable, and
// no page of it copied on write (relocated read-only data was written before it was made read-only).
static bool clean_exe_mapping(const struct mapping *m, const char *exe) {
  return m->start && strcmp(m->path, exe) == 0 && m->perms[1] != 'w' && m->perms[3] == 'p' && m->anon_kb == 0 &&
         m->rss_kb > 0;
}

static void keep_if_clean(const struct mapping *m, const char *exe, struct range *found, size_t *count) {
  if (!clean_exe_mapping(m, exe) || *count >= MAX_RANGES) return;
  found[*count] = (struct range){m->start, m->end, m->rss_kb};
  (*count)++;
}

// releaseExecutablePages(): unmaps this process's resident pages of its own executable (node) that are clean
// file pages. They stay in the page cache; those still in use fault back in at their next access. Returns the
// bytes of resident memory released.
static napi_value js_release_executable_pages(napi_env env, napi_callback_info info) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  FILE *f = n > 0 ? fopen("/proc/self/smaps", "re") : NULL;
  if (!f) return throw_errno(env, errno, "releaseExecutablePages");
  exe[n] = 0;
  // smaps is read whole before anything is released: madvise while reading would change what is read
  struct range found[MAX_RANGES];
  size_t count = 0;
  static struct mapping cur;
  memset(&cur, 0, sizeof cur);
  char line[PATH_MAX + 128];
  while (fgets(line, sizeof line, f)) {
    uintptr_t s, e;
    char perms[5];
    int path_at = 0;
    if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %n", &s, &e, perms, &path_at) == 3 && path_at > 0) {
      keep_if_clean(&cur, exe, found, &count);
      memset(&cur, 0, sizeof cur);
      cur.start = s;
      cur.end = e;
      memcpy(cur.perms, perms, sizeof perms);
      snprintf(cur.path, sizeof cur.path, "%s", line + path_at);
      cur.path[strcspn(cur.path, "\n")] = 0;
    } else if (strncmp(line, "Rss:", 4) == 0) {
      sscanf(line + 4, "%ld", &cur.rss_kb);
    } else if (strncmp(line, "Anonymous:", 10) == 0) {
      sscanf(line + 10, "%ld", &cur.anon_kb);
    }
  }
  keep_if_clean(&cur, exe, found, &count);
  fclose(f);
  int64_t released = 0;
  for (size_t i = 0; i < count; i++) {
    if (madvise((void *)found[i].start, found[i].end - found[i].start, MADV_DONTNEED) == 0) {
      released += (int64_t)found[i].rss_kb * 1024;
    }
  }
  napi_value v;
  napi_create_int64(env, released, &v);
  return v;
}

void register_memory_policy(napi_env env, napi_value exports) {
  export_function(env, exports, "tuneMalloc", js_tune_malloc);
  export_function(env, exports, "releaseExecutablePages", js_release_executable_pages);
}
