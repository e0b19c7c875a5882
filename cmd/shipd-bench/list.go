package main

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/lib/pq"

	"shipd/modules/shipments/adapters"
	"shipd/modules/shipments/app/query"
	"shipd/platform/ids"
)

// listSeed is what seedShipmentList wrote, for the report.
type listSeed struct {
	accounts         int   // accounts with rows, the bench's included
	rows, tombstones int64 // all accounts
	benchLive        int64 // the bench account's live shipments
	benchTombstones  int64
	channels         []string // the bench account's, most used first
	churned          int64    // rows updated or deleted after the vacuum
	took             time.Duration
}

// listRecord is the list row's record as the projection writes it
// (contract.Summary), from the row's own columns and status.
func listRecord(status string) string {
	return `json_build_object('id', id, 'reference_number', reference_number, 'shipping_channel_id', channel_id,
		'provider_shipment_id', provider_shipment_id, 'status', ` + status + `, 'total_price', 6.5, 'currency', 'EUR',
		'created_at', to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
		'updated_at', to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))`
}

// seedAccount is one account of the list seed.
type seedAccount struct {
	id       string
	rows     int64    // tombstones included
	channels []string // a weighted draw: a channel listed twice gets twice the rows
	psid     string   // provider shipment id prefix
}

// seedShipmentList fills the list read model as the projection would have
// after a long life: the bench account's n live shipments over several
// channels (one takes half of them), tombstones of about a tenth as many
// deleted ones among them, and four more accounts with n rows between them,
// all interleaved in the order they were created. Then a vacuum and
// analyze, as autovacuum would have made after the bulk, and afterwards the
// churn autovacuum has not caught up with yet: the newest 5 % moved on a
// status, 1 % of the newest deleted.
func seedShipmentList(ctx context.Context, s *service, n int) (listSeed, error) {
	start := time.Now()
	seed := listSeed{channels: []string{s.channel}}
	for i := range 4 {
		ch, err := s.call("POST", "/v1/shipping-channels", fmt.Sprintf(`{"name":"bench list %d","provider":"sandbox","settings":{"clientId":"a","clientSecret":"b"}}`, i))
		if err != nil {
			return seed, err
		}
		seed.channels = append(seed.channels, ch["data"].(map[string]any)["id"].(string))
	}
	benchRows := int64(math.Ceil(float64(n) / 0.9))
	c := seed.channels
	accounts := []seedAccount{{s.account, benchRows, []string{c[0], c[0], c[0], c[0], c[0], c[0], c[0], c[0], c[0], c[0],
		c[1], c[1], c[1], c[1], c[1], c[2], c[2], c[2], c[3], c[4]}, "SBX"}}
	for i, share := range []int{2, 4, 8, 8} {
		accounts = append(accounts, seedAccount{ids.New(ids.Account), int64(n / share),
			[]string{ids.New(ids.ShippingChannel), ids.New(ids.ShippingChannel)}, fmt.Sprintf("SB%d", i)})
	}
	var accountIDs, psids, channels []string
	var rows []int64
	for _, a := range accounts {
		accountIDs, rows, psids = append(accountIDs, a.id), append(rows, a.rows), append(psids, a.psid)
		// One text per account: the channels joined, split again in SQL.
		channels = append(channels, strings.Join(a.channels, ","))
	}
	// Tombstones: a pseudo-random tenth of every account's rows (a
	// multiplicative hash of seq), keeping the status they were deleted in.
	_, err := s.db.ExecContext(ctx, `
		INSERT INTO shipments.shipment_list (id, account_id, seq, version, deleted, status, channel_id, reference_number, provider_shipment_id, created_at, record)
		SELECT id, account_id, seq, CASE WHEN deleted THEN 3 ELSE 2 END, deleted, status, channel_id, reference_number, provider_shipment_id, created_at, `+listRecord("status")+`
		FROM (SELECT a.account_id, g AS seq, 'sh_B' || a.i || lpad(g::text, 24, '0') AS id,
		             (g * 2654435761) % 1000 < 100 AS deleted,
		             (ARRAY['pending','created','shipped','delivered','cancelled','returned'])[(1 + g % 6)::int] AS status,
		             (string_to_array(a.channels, ','))[(1 + (g / 6) % cardinality(string_to_array(a.channels, ',')))::int] AS channel_id,
		             'ORDER-' || lpad(g::text, 8, '0') AS reference_number, a.psid || lpad(g::text, 12, '0') AS provider_shipment_id,
		             timestamptz '2025-01-01' + make_interval(secs => (g * 63072000.0 / a.n)::float8) AS created_at
		      FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[]) WITH ORDINALITY AS a(account_id, n, channels, psid, i),
		           generate_series(1, a.n) g
		      ORDER BY created_at) src`, pq.Array(accountIDs), pq.Array(rows), pq.Array(channels), pq.Array(psids))
	if err != nil {
		return seed, fmt.Errorf("seeding list: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO shipments.shipment_list_seq (account_id, last_seq) SELECT * FROM unnest($1::text[], $2::bigint[])
		ON CONFLICT (account_id) DO UPDATE SET last_seq = excluded.last_seq`, pq.Array(accountIDs), pq.Array(rows)); err != nil {
		return seed, err
	}
	if _, err := s.db.ExecContext(ctx, `VACUUM ANALYZE shipments.shipment_list`); err != nil {
		return seed, err
	}
	// The churn since that vacuum, on the bench account's newest rows.
	const moved = `CASE status WHEN 'pending' THEN 'created' WHEN 'created' THEN 'shipped' WHEN 'shipped' THEN 'delivered' ELSE status END`
	res, err := s.db.ExecContext(ctx, `UPDATE shipments.shipment_list SET version = version + 1, status = `+moved+`, record = `+listRecord(moved)+`
		WHERE account_id = $1 AND NOT deleted AND seq > $2`, s.account, benchRows-benchRows/20)
	if err != nil {
		return seed, err
	}
	updated, _ := res.RowsAffected()
	res, err = s.db.ExecContext(ctx, `UPDATE shipments.shipment_list SET version = version + 1, deleted = true
		WHERE account_id = $1 AND NOT deleted AND seq > $2 AND seq % 2 = 0`, s.account, benchRows-benchRows/50)
	if err != nil {
		return seed, err
	}
	deleted, _ := res.RowsAffected()
	seed.churned = updated + deleted
	// The counters and block counts the projection keeps, from the rows.
	if err := adapters.RecountShipmentList(ctx, s.db, accountIDs); err != nil {
		return seed, fmt.Errorf("seeding counts: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, `CHECKPOINT`); err != nil {
		return seed, err
	}
	if err := s.db.QueryRowContext(ctx, `SELECT count(DISTINCT account_id), count(*), count(*) FILTER (WHERE deleted),
		count(*) FILTER (WHERE account_id = $1 AND NOT deleted), count(*) FILTER (WHERE account_id = $1 AND deleted)
		FROM shipments.shipment_list`, s.account).Scan(&seed.accounts, &seed.rows, &seed.tombstones, &seed.benchLive, &seed.benchTombstones); err != nil {
		return seed, err
	}
	seed.took = time.Since(start)
	logf("seeded %d list rows (%d tombstones) of %d accounts in %s", seed.rows, seed.tombstones, seed.accounts, seed.took.Round(time.Second))
	return seed, nil
}

type latency struct {
	name           string
	query          string
	direct         query.ListShipments // the same page asked of the read model's SQL directly
	p50, p99       time.Duration
	sqlP50, sqlP99 time.Duration
	total          int
}

func benchShipmentList(ctx context.Context, s *service, rows, samples int, report *strings.Builder) error {
	seed, err := seedShipmentList(ctx, s, rows)
	if err != nil {
		return err
	}
	vacuumsBefore, err := autovacuums(ctx, s)
	if err != nil {
		return err
	}
	const perPage = 25 // the API's default
	page := func(q query.ListShipments, n int) query.ListShipments {
		q.AccountID, q.Limit, q.Offset = s.account, perPage, (n-1)*perPage
		return q
	}
	second := seed.channels[1] // a quarter of the account's shipments
	cases := []latency{
		{name: "page 1", query: "?page=1", direct: page(query.ListShipments{}, 1)},
		{name: "page 5,000", query: "?page=5000", direct: page(query.ListShipments{}, 5000)},
		{name: "status=delivered, page 1", query: "?status=delivered", direct: page(query.ListShipments{Status: "delivered"}, 1)},
		{name: "status=delivered, page 5,000", query: "?status=delivered&page=5000", direct: page(query.ListShipments{Status: "delivered"}, 5000)},
		{name: "one channel, page 1", query: "?shipping_channel_id=" + second, direct: page(query.ListShipments{ChannelID: second}, 1)},
		{name: "one channel, page 5,000", query: "?shipping_channel_id=" + second + "&page=5000", direct: page(query.ListShipments{ChannelID: second}, 5000)},
		{name: "search (reference prefix)", query: "?search=" + url.QueryEscape("ORDER-0012"), direct: page(query.ListShipments{Search: "ORDER-0012"}, 1)},
		{name: "search (provider shipment id)", query: "?search=SBX000000777777", direct: page(query.ListShipments{Search: "SBX000000777777"}, 1)},
		// Every reference starts with it, as the first letters typed do.
		{name: "search (prefix of every reference)", query: "?search=ORDER-", direct: page(query.ListShipments{Search: "ORDER-"}, 1)},
		// Neither few matches nor few non-matches: every match is counted.
		{name: "search (prefix of a tenth)", query: "?search=ORDER-001", direct: page(query.ListShipments{Search: "ORDER-001"}, 1)},
	}
	reader := adapters.NewShipmentListReader(s.db)
	for i := range cases {
		c := &cases[i]
		var err error
		c.p50, c.p99, err = percentiles(samples, func() error {
			m, err := s.call("GET", "/v1/shipments"+c.query, "")
			if err == nil {
				c.total = int(m["meta"].(map[string]any)["total"].(float64))
			}
			return err
		})
		if err != nil {
			return err
		}
		c.sqlP50, c.sqlP99, err = percentiles(samples, func() error {
			p, err := reader.List(ctx, c.direct)
			if err == nil && p.Total != c.total {
				err = fmt.Errorf("list %s: the SQL found %d, the API %d", c.name, p.Total, c.total)
			}
			return err
		})
		if err != nil {
			return err
		}
		logf("list %s: p50 %s p99 %s (SQL alone p50 %s)", c.name, c.p50, c.p99, c.sqlP50)
	}
	vacuumsAfter, err := autovacuums(ctx, s)
	if err != nil {
		return err
	}
	fmt.Fprintf(report, "## `GET /v1/shipments` on %d shipments of one account\n\n", seed.benchLive)
	fmt.Fprintf(report, "The list read model as the projection leaves it after a long life, seeded directly in %s: %d rows of %d accounts,\n", seed.took.Round(time.Second), seed.rows, seed.accounts)
	fmt.Fprintf(report, "interleaved in creation order. The measured account has %d live shipments over %d channels (a half, a\n", seed.benchLive, len(seed.channels))
	fmt.Fprintf(report, "quarter, 15 %%, 5 %%, 5 %%) and %d tombstones of deleted ones among them; the others have %d rows\n", seed.benchTombstones, seed.rows-seed.benchLive-seed.benchTombstones)
	fmt.Fprintf(report, "(%d tombstones in all). After a `VACUUM ANALYZE` (what autovacuum does after the bulk), %d of the account's\n", seed.tombstones, seed.churned)
	fmt.Fprintf(report, "newest rows were updated or deleted and left for autovacuum (it ran %d times during the measurements).\n", vacuumsAfter-vacuumsBefore)
	fmt.Fprintf(report, "%d sequential requests each after a warm-up; every answer includes `meta.total`. Target: p99 under 15 ms,\npage 5,000 no slower than 2x page 1. ", samples)
	fmt.Fprintf(report, "Baseline: the same page asked of the read model's SQL directly (the module's\nreader over one database connection pool, no HTTP, authentication, rate limit or JSON), as many times.\n\n")
	fmt.Fprintf(report, "| query | API p50 | API p99 | SQL alone p50 | SQL alone p99 | API / SQL (p50) | meta.total |\n|---|---|---|---|---|---|---|\n")
	for _, c := range cases {
		q := strings.Replace(c.query, second, "<channel>", 1)
		fmt.Fprintf(report, "| %s (`%s`) | %s | %s | %s | %s | %.2fx | %d |\n", c.name, q, ms(c.p50), ms(c.p99),
			ms(c.sqlP50), ms(c.sqlP99), float64(c.p50)/float64(c.sqlP50), c.total)
	}
	fmt.Fprintf(report, "\nPage 5,000 / page 1: p50 %.2fx, p99 %.2fx.\n\n",
		float64(cases[1].p50)/float64(cases[0].p50), float64(cases[1].p99)/float64(cases[0].p99))
	return nil
}

// autovacuums is how often autovacuum has vacuumed the list so far.
func autovacuums(ctx context.Context, s *service) (int, error) {
	var n int
	err := s.db.GetContext(ctx, &n, `SELECT autovacuum_count FROM pg_stat_user_tables WHERE relid = 'shipments.shipment_list'::regclass`)
	return n, err
}

// percentiles runs op samples times after a tenth as many warm-up runs and
// returns the p50 and p99 of the timed runs.
func percentiles(samples int, op func() error) (p50, p99 time.Duration, err error) {
	var took []time.Duration
	for range samples + samples/10 {
		t0 := time.Now()
		if err := op(); err != nil {
			return 0, 0, err
		}
		took = append(took, time.Since(t0))
	}
	took = took[samples/10:]
	slices.Sort(took)
	return pct(took, 50), pct(took, 99), nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
