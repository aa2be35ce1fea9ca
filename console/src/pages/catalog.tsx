import { useState } from "preact/hooks";
import { useApiGet, when } from "../components/data.js";
import { Busy, ErrorNote, Section } from "../components/ui.js";
import { href, navigate, type Route } from "../router.js";
import { useCan } from "../session.js";
import { CreateEntry } from "./catalog/create-entry.js";
import { EntryPage } from "./catalog/entry.js";

/** A catalog entry (docs/rest-api.md "Server catalog"). */
export interface CatalogEntry {
  entry_id: string;
  name: string;
  description: string;
  mode: string | null;
  command: string[] | null;
  image: string | null;
  endpoint: string | null;
  tags: string[];
  created_at: string;
  created_by: string;
}

/** Entries a page shows. */
const PAGE_SIZE = 20;

/** The server catalog: `#/catalog` lists and filters it, `#/catalog/<entry_id>` shows one entry. */
export function CatalogPage({ route }: { route: Route }) {
  const entryId = route.parts[1];
  if (entryId) return <EntryPage entryId={entryId} />;
  return <CatalogList />;
}

function CatalogList() {
  const can = useCan();
  const [search, setSearch] = useState("");
  const [tags, setTags] = useState("");
  const [filter, setFilter] = useState({ search: "", tags: "" });
  const [offset, setOffset] = useState(0);
  const query = new URLSearchParams({ limit: String(PAGE_SIZE), offset: String(offset) });
  if (filter.search) query.set("search", filter.search);
  if (filter.tags) query.set("tags", filter.tags);
  const list = useApiGet<{ entries: CatalogEntry[]; total: number; limit: number; offset: number }>(
    `/catalog/?${query}`,
  );
  const apply = (event: Event) => {
    event.preventDefault();
    setFilter({ search: search.trim(), tags: tags.trim() });
    setOffset(0);
  };
  const data = list.data;
  return (
    <div>
      <Section title="Server catalog">
        <form class="form-row" onSubmit={apply}>
          <div class="grow">
            <label for="cat-search">Search names and descriptions</label>
            <input
              id="cat-search"
              type="search"
              value={search}
              onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
            />
          </div>
          <div class="grow">
            <label for="cat-tags">Tags (all of them, comma-separated)</label>
            <input
              id="cat-tags"
              type="text"
              value={tags}
              onInput={(e) => setTags((e.target as HTMLInputElement).value)}
            />
          </div>
          <div class="form-actions">
            <button type="submit">Filter</button>
          </div>
        </form>
        <ErrorNote message={list.error} />
        {list.loading && !data && <Busy label="Loading the catalog…" />}
        {data && data.entries.length === 0 && (
          <p>{filter.search || filter.tags ? "No entry matches." : "The catalog is empty."}</p>
        )}
        {data && data.entries.length > 0 && (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Description</th>
                  <th scope="col">Mode</th>
                  <th scope="col">Tags</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {data.entries.map((entry) => (
                  <tr key={entry.entry_id} data-entry={entry.name}>
                    <td>
                      <a href={href("catalog", entry.entry_id)}>{entry.name}</a>
                    </td>
                    <td>{entry.description}</td>
                    <td>{entry.mode ?? "—"}</td>
                    <td>
                      <Tags
                        tags={entry.tags}
                        onPick={(tag) => {
                          setTags(tag);
                          setFilter({ search: filter.search, tags: tag });
                          setOffset(0);
                        }}
                      />
                    </td>
                    <td>{when(entry.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {data && data.entries.length > 0 && (
          <nav class="pager" aria-label="catalog pages">
            {data.total > data.limit && (
              <button
                type="button"
                disabled={data.offset === 0}
                onClick={() => setOffset(Math.max(0, data.offset - data.limit))}
              >
                Previous
              </button>
            )}
            <span>
              {data.offset + 1}–{data.offset + data.entries.length} of {data.total}
            </span>
            {data.total > data.limit && (
              <button
                type="button"
                disabled={data.offset + data.limit >= data.total}
                onClick={() => setOffset(data.offset + data.limit)}
              >
                Next
              </button>
            )}
          </nav>
        )}
      </Section>
      {can("POST /catalog/") && <CreateEntry onCreated={(entry) => navigate("catalog", entry.entry_id)} />}
    </div>
  );
}

/** An entry's tags; choosing one filters the list by it. */
export function Tags({ tags, onPick }: { tags: string[]; onPick?: (tag: string) => void }) {
  if (tags.length === 0) return <span class="muted">—</span>;
  return (
    <ul class="tags">
      {tags.map((tag) => (
        <li key={tag}>
          {onPick ? (
            <button type="button" class="tag" aria-label={`Filter by tag ${tag}`} onClick={() => onPick(tag)}>
              {tag}
            </button>
          ) : (
            <span class="tag">{tag}</span>
          )}
        </li>
      ))}
    </ul>
  );
}
