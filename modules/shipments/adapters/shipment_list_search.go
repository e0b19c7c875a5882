package adapters

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"shipd/modules/shipments/app/query"
	"shipd/platform/postgres"
)

// searchProbe is how many matches, and how many non-matches, a search
// counts at most before it counts another way.
const searchProbe = 10_000

// search answers a search: shipments whose reference starts with it, and
// the one whose provider shipment id is it (exactly), not counted twice when
// its reference matches too. Matches are found on covering indexes
// (index-only scans, the filters included); only the page's rows are read.
//
// meta.total is exact, so a search costs at least what counting its matches
// costs, and the cheap way to count depends on how many there are, which
// the first statement finds out:
//   - narrow (fewer than searchProbe matches, as most searches are): the
//     matches are counted, sorted for the page, in one statement;
//   - broad (fewer than searchProbe non-matches, as the first letters typed
//     of references that all begin alike): the shape's total from the
//     counters less the non-matches, and the page by walking the list newest
//     first until it is full, which passes at most searchProbe non-matches;
//   - neither: every match counted and sorted.
//
// Each statement answers in full or not at all, so the total and the page
// always come from one snapshot. Each is planned for its own case: a plan
// with all three in it chose parallel workers and JIT compilation for the
// branches it then did not run.
func (r *ShipmentListReader) search(ctx context.Context, q query.ListShipments) (query.ShipmentPage, error) {
	for _, statement := range []func(query.ListShipments) (string, []any){r.narrowSearch, r.broadSearch, everySearchMatch} {
		stmt, args := statement(q)
		page, err := r.page(ctx, stmt, args...)
		if err != nil || page.Total >= 0 {
			return page, err
		}
	}
	return query.ShipmentPage{}, errors.New("listing shipments: no search statement counted the matches")
}

// searchSQL holds a search statement's parameters as it is written.
type searchSQL struct {
	where string // the account's live rows and the filters
	args  []any
}

func newSearchSQL(q query.ListShipments) *searchSQL {
	where, args := filters(q)
	return &searchSQL{where: where, args: args}
}

// param adds a parameter and returns its placeholder.
func (s *searchSQL) param(v any) string {
	s.args = append(s.args, v)
	return "$" + strconv.Itoa(len(s.args))
}

// matches are the statement's first CTEs: referenced (by reference prefix)
// and identified (by provider id, its reference not matching).
func (s *searchSQL) matches(q query.ListShipments) (with, like string) {
	like = s.param(postgres.EscapeLike(q.Search) + "%")
	return `
		WITH referenced AS NOT MATERIALIZED (
			SELECT seq FROM shipments.shipment_list WHERE ` + s.where + ` AND reference_number LIKE ` + like + `
		), identified AS NOT MATERIALIZED (
			SELECT seq FROM shipments.shipment_list
			WHERE ` + s.where + ` AND provider_shipment_id = ` + s.param(q.Search) + ` AND reference_number NOT LIKE ` + like + `
		)`, like
}

// answer ends a statement whose CTEs total (n; null when not counted) and
// page (seq) are written: the total and the page's records.
const answer = `
		SELECT total.n, l.record FROM total
		LEFT JOIN (page JOIN shipments.shipment_list l ON l.account_id = $1 AND l.seq = page.seq) ON true
		ORDER BY page.seq DESC`

// narrowSearch counts and sorts up to r.probe matches; with more it
// answers null.
func (r *ShipmentListReader) narrowSearch(q query.ListShipments) (string, []any) {
	s := newSearchSQL(q)
	with, _ := s.matches(q)
	probe := s.param(r.probe)
	return with + `, probed AS MATERIALIZED (
			SELECT seq FROM referenced LIMIT ` + probe + `
		), total AS (
			SELECT CASE WHEN count(*) < ` + probe + ` THEN count(*) + (SELECT count(*) FROM identified) END AS n FROM probed
		), page AS (
			SELECT seq FROM (SELECT seq FROM probed UNION ALL SELECT seq FROM identified) m
			WHERE (SELECT n FROM total) IS NOT NULL
			ORDER BY seq DESC OFFSET ` + s.param(q.Offset) + ` LIMIT ` + s.param(q.Limit) + `
		)` + answer, s.args
}

// broadSearch counts up to r.probe non-matches and, with fewer, answers
// the shape's total less them, and the page from a walk of the list newest
// first; with more it answers null and walks nothing.
func (r *ShipmentListReader) broadSearch(q query.ListShipments) (string, []any) {
	s := newSearchSQL(q)
	with, like := s.matches(q)
	counted := strings.Replace(s.where, " AND NOT deleted", "", 1)
	// A reference that does not start with the search sorts (bytewise, as
	// the index's text_pattern_ops) before it or after every one that does.
	// The search followed by the greatest code point is after nearly all of
	// those, so the non-matches above are read from there, skipping the
	// matches' index entries; NOT LIKE keeps the count exact either way.
	below, above, probe := s.param(q.Search), s.param(q.Search+"\U0010FFFF"), s.param(r.probe)
	offset, limit := s.param(q.Offset), s.param(q.Limit)
	return with + `, outside AS (
			SELECT count(*) AS n FROM (
				SELECT FROM shipments.shipment_list WHERE ` + s.where + ` AND reference_number ~<~ ` + below + `
				UNION ALL
				SELECT FROM shipments.shipment_list WHERE ` + s.where + ` AND reference_number ~>=~ ` + above + ` AND reference_number NOT LIKE ` + like + `
				LIMIT ` + probe + `) c
		), total AS (
			SELECT CASE WHEN n < ` + probe + ` THEN
				(SELECT coalesce(sum(n), 0) FROM shipments.shipment_counts WHERE ` + counted + `) - n + (SELECT count(*) FROM identified)
			END AS n FROM outside
		), page AS (
			SELECT seq FROM (
				(SELECT seq FROM referenced WHERE (SELECT n FROM total) IS NOT NULL
				 ORDER BY seq DESC LIMIT ` + offset + `::bigint + ` + limit + `::bigint)
				UNION ALL
				SELECT seq FROM identified) m
			ORDER BY seq DESC OFFSET ` + offset + ` LIMIT ` + limit + `
		)` + answer, s.args
}

// everySearchMatch counts every match and sorts them for the page. The
// sort key is an expression no index is in order of, so the planner sorts
// the prefix index's entries instead of walking the list newest first: the
// matches of a reference prefix are often all old (references count up as
// shipments are made), and the walk would pass the whole list to reach them.
func everySearchMatch(q query.ListShipments) (string, []any) {
	s := newSearchSQL(q)
	with, _ := s.matches(q)
	return with + `, total AS (
			SELECT (SELECT count(*) FROM referenced) + (SELECT count(*) FROM identified) AS n
		), page AS (
			SELECT seq FROM (
				(SELECT seq FROM referenced ORDER BY seq + 0 DESC
				 LIMIT ` + s.param(q.Offset) + `::bigint + ` + s.param(q.Limit) + `::bigint)
				UNION ALL
				SELECT seq FROM identified) m
			ORDER BY seq DESC OFFSET $` + strconv.Itoa(len(s.args)-1) + ` LIMIT $` + strconv.Itoa(len(s.args)) + `
		)` + answer, s.args
}
