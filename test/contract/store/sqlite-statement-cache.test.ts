import Database from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { withStatementCache } from "../../../src/adapters/store/sqlite/open-sqlite.js";

interface Tables {
  items: { id: number; name: string };
}

describe("the SQLite statement cache", () => {
  let database: Database.Database;
  afterEach(() => database?.close());

  function counted(size?: number): { prepared: string[] } {
    database = new Database(":memory:");
    const prepared: string[] = [];
    const original = database.prepare.bind(database);
    database.prepare = ((source: string) => {
      prepared.push(source);
      return original(source);
    }) as Database.Database["prepare"];
    withStatementCache(database, size);
    return { prepared };
  }

  it("prepares a statement once and answers later requests for the same text with it", () => {
    const { prepared } = counted();
    const first = database.prepare("select ? as x");
    expect(database.prepare("select ? as x")).toBe(first);
    expect(first.get(1)).toEqual({ x: 1 });
    expect(database.prepare("select ? as x").get(2)).toEqual({ x: 2 });
    expect(prepared).toEqual(["select ? as x"]);
  });

  it("keeps at most its size, dropping the least recently used", () => {
    const { prepared } = counted(2);
    database.prepare("select 1");
    database.prepare("select 2");
    database.prepare("select 1");
    database.prepare("select 3");
    database.prepare("select 1");
    database.prepare("select 2");
    expect(prepared).toEqual(["select 1", "select 2", "select 3", "select 2"]);
  });

  it("serves Kysely's queries, with their parameters, across a schema change", async () => {
    counted();
    const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database }) });
    await sql`create table items (id integer primary key, name text not null)`.execute(db);
    for (const [id, name] of [
      [1, "one"],
      [2, "two"],
    ] as const) {
      await db.insertInto("items").values({ id, name }).execute();
    }
    const byId = (id: number) => db.selectFrom("items").selectAll().where("id", "=", id).executeTakeFirst();
    expect(await byId(1)).toEqual({ id: 1, name: "one" });
    expect(await byId(2)).toEqual({ id: 2, name: "two" });
    await sql`alter table items add column size integer not null default 7`.execute(db);
    expect(await byId(2)).toEqual({ id: 2, name: "two", size: 7 });
    const streamed = [];
    for await (const row of db.selectFrom("items").select("name").orderBy("id").stream())
      streamed.push(row.name);
    expect(streamed).toEqual(["one", "two"]);
    await db.destroy();
  });
});
