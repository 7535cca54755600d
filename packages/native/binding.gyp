{
  "targets": [
    {
      "target_name": "svc_native",
      "sources": ["src/svc_native.c", "src/tcp_probe.c"],
      "cflags": ["-Wall", "-Wextra", "-Wno-unused-parameter", "-O2"],
      "defines": ["NAPI_VERSION=8"]
    }
  ]
}
