import { Link } from "@tanstack/react-router";

/** Unknown client route. */
export function NotFoundPage() {
  return (
    <main className="page" id="main">
      <h1>Page not found</h1>
      <p>
        There is no page at this address. <Link to="/">Go to the overview</Link>.
      </p>
    </main>
  );
}
