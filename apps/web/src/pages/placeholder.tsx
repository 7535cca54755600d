/** Routed pages of later slices, and the not-found page. */
import { Link } from "@tanstack/react-router";

/** A page that exists in the navigation but whose content is not built yet. */
export function PlaceholderPage(props: { title: string; needs: string }) {
  return (
    <section className="page">
      <h1>{props.title}</h1>
      <div className="card">
        <p>
          <strong>Not built yet.</strong> This page needs {props.needs}; it arrives in a later release of the
          console.
        </p>
      </div>
    </section>
  );
}

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
