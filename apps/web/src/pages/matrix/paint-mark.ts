/**
 * The `svc:matrix-painted` mark on the page's performance timeline: set once the frame that shows a newly drawn
 * matrix has been presented (one animation frame, then a task after its paint). bench/matrix-render reads it to
 * time the matrix's first paint; nothing in the app depends on it.
 */
export const MATRIX_PAINTED = "svc:matrix-painted";

/** Marks the paint of a matrix of `nodes` nodes and `cells` cells with data after the current frame. */
export function markMatrixPainted(nodes: number, cells: number): void {
  requestAnimationFrame(() =>
    setTimeout(() => performance.mark(MATRIX_PAINTED, { detail: { nodes, cells } })),
  );
}
