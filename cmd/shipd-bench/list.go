package main

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"shipd/modules/shipments/adapters"
	"shipd/modules/shipments/app/query"
)

// seedShipmentList fills the list read model of the bench account with n
// shipments, as the projection would have, and its counters.
func seedShipmentList(ctx context.Context, s *service, n int) error {
	start := time.Now()
	_, err := s.db.ExecContext(ctx, `
		INSERT INTO shipments.shipment_list (id, account_id, seq, version, deleted, status, channel_id, reference_number, provider_shipment_id, created_at, record)
		SELECT id, $1, g, 2, false, status, $2, ref, psid, created, json_build_object(
			'id', id, 'reference_number', ref, 'shipping_channel_id', $2::text, 'provider_shipment_id', psid, 'status', status,
			'total_price', 6.5, 'currency', 'EUR', 'created_at', to_char(created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
			'updated_at', to_char(created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
		FROM (SELECT g, 'sh_BENCH' || lpad(g::text, 21, '0') AS id,
		             (ARRAY['pending','created','shipped','delivered','cancelled','returned'])[1 + g % 6] AS status,
		             'ORDER-' || lpad(g::text, 8, '0') AS ref, 'SBX' || lpad(g::text, 12, '0') AS psid,
		             timestamptz '2025-01-01' + make_interval(secs => g * 20) AS created
		      FROM generate_series(1, $3) g) src`, s.account, s.channel, n)
	if err != nil {
		return fmt.Errorf("seeding list: %w", err)
	}
	_, err = s.db.ExecContext(ctx, `
		INSERT INTO shipments.shipment_counts (account_id, status, channel_id, n)
		SELECT account_id, status, channel_id, count(*) FROM shipments.shipment_list WHERE account_id = $1 AND NOT deleted
		GROUP BY 1, 2, 3
		ON CONFLICT (account_id, status, channel_id) DO UPDATE SET n = excluded.n`, s.account)
	if err != nil {
		return fmt.Errorf("seeding counts: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO shipments.shipment_list_seq (account_id, last_seq) VALUES ($1, $2)
		ON CONFLICT (account_id) DO UPDATE SET last_seq = excluded.last_seq`, s.account, n); err != nil {
		return err
	}
	if _, err := s.db.ExecContext(ctx, `VACUUM ANALYZE shipments.shipment_list`); err != nil {
		return err
	}
	logf("seeded %d shipments in %s", n, time.Since(start).Round(time.Second))
	return nil
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
	if err := seedShipmentList(ctx, s, rows); err != nil {
		return err
	}
	const perPage = 25 // the API's default
	page := func(q query.ListShipments, n int) query.ListShipments {
		q.AccountID, q.Limit, q.Offset = s.account, perPage, (n-1)*perPage
		return q
	}
	cases := []latency{
		{name: "page 1", query: "?page=1", direct: page(query.ListShipments{}, 1)},
		{name: "page 5,000", query: "?page=5000", direct: page(query.ListShipments{}, 5000)},
		{name: "status=delivered, page 1", query: "?status=delivered", direct: page(query.ListShipments{Status: "delivered"}, 1)},
		{name: "status=delivered, page 5,000", query: "?status=delivered&page=5000", direct: page(query.ListShipments{Status: "delivered"}, 5000)},
		{name: "search (reference prefix)", query: "?search=" + url.QueryEscape("ORDER-0012"), direct: page(query.ListShipments{Search: "ORDER-0012"}, 1)},
		{name: "search (provider shipment id)", query: "?search=SBX000000777777", direct: page(query.ListShipments{Search: "SBX000000777777"}, 1)},
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
	fmt.Fprintf(report, "## `GET /v1/shipments` on %d shipments of one account\n\n", rows)
	fmt.Fprintf(report, "%d sequential requests each after a warm-up; every answer includes `meta.total`. Target: p99 under 25 ms,\npage 5,000 no slower than 2x page 1. ", samples)
	fmt.Fprintf(report, "Baseline: the same page asked of the read model's SQL directly (the module's\nreader over one database connection pool, no HTTP, authentication, rate limit or JSON), as many times.\n\n")
	fmt.Fprintf(report, "| query | API p50 | API p99 | SQL alone p50 | SQL alone p99 | API / SQL (p50) | meta.total |\n|---|---|---|---|---|---|---|\n")
	for _, c := range cases {
		fmt.Fprintf(report, "| %s (`%s`) | %s | %s | %s | %s | %.2fx | %d |\n", c.name, c.query, ms(c.p50), ms(c.p99),
			ms(c.sqlP50), ms(c.sqlP99), float64(c.p50)/float64(c.sqlP50), c.total)
	}
	fmt.Fprintf(report, "\nPage 5,000 / page 1: p50 %.2fx, p99 %.2fx.\n\n",
		float64(cases[1].p50)/float64(cases[0].p50), float64(cases[1].p99)/float64(cases[0].p99))
	return nil
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
