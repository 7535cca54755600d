// Vite build of the console SPA: `npm run build -w @svc/web` -> apps/web/dist, served by `svc console`.
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

export const config = defineConfig({
  plugins: [react()],
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false, target: "es2022" },
  server: { proxy: { "/api": "http://127.0.0.1:8080" } },
});

// biome-ignore lint/style/noDefaultExport: Vite reads the config from the default export
export default config;
