/** The header row of a data table: one `<th scope="col">` per column; null/false columns are left out. */
export function TableHead(p: { columns: readonly (string | null | false)[] }) {
  return (
    <thead>
      <tr>
        {p.columns
          .filter((c): c is string => typeof c === "string")
          .map((c) => (
            <th scope="col" key={c}>
              {c}
            </th>
          ))}
      </tr>
    </thead>
  );
}
