/**
 * The fields an encoded query names. The instance drops a term on a field the table does not have and runs the
 * rest (unless `glide.invalid_query.returns_no_rows=true`): a misspelt filter streams the whole table. Callers
 * check these names against the table's dictionary before the query is ever sent.
 *
 * A term is `<field><operator><value>`; field names are lower case (`u_` custom columns included), operators
 * start with a symbol or an upper-case word, so the field is the leading lower-case run. A dot-walked name
 * (`caller_id.name`) is reported by its first segment, the column of this table. Keywords that are no
 * condition (`EQ`, `ORDERBY…`, `GROUPBY…`, `RLQUERY…`, `123TEXTQUERY321`) are skipped.
 */
const FIELD = /^([a-z0-9_]+)(?:\.[a-z0-9_]+)*/;
const KEYWORD = /^(EQ$|ORDERBY|ORDERBYDESC|GROUPBY|RLQUERY|ENDRLQUERY|123TEXTQUERY321|IR_)/;

export function queryFields(query: string): string[] {
  const fields = new Set<string>();
  for (const term of query.split(/\^NQ|\^OR|\^/)) {
    const text = term.trim();
    if (text === "" || KEYWORD.test(text)) continue;
    const match = text.match(FIELD);
    if (match) fields.add(match[1]);
  }
  return [...fields];
}
