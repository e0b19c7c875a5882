package main

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/platform/ids"
	"shipd/platform/messaging"
	"shipd/platform/postgres"
)

// writeTemplate is what the API's transaction wrote for one shipment, row by
// row, so the baseline writes the same rows however the service's storage
// changes: the shipment row (its state, booking flag, everything) and the
// outbox messages.
type writeTemplate struct {
	shipmentID string // the API's shipment, replaced by a new id in every copy
	reference  string // its reference number, replaced likewise
	rows       []templateRow
}

// templateRow is one row the API wrote and how a copy is made of it.
type templateRow struct {
	table   string // schema-qualified, quoted
	columns []templateColumn
}

type templateColumn struct {
	name  string         // quoted
	kind  columnKind     // how a copy gets its value
	value sql.NullString // the API's value, as text
}

type columnKind int

const (
	copied        columnKind = iota // the API's value, with the ids and reference replaced
	eventID                         // a new event id, as the publisher makes one per message
	timestamp                       // now, as the API stamps its rows
	transactionID                   // pg_current_xact_id(), as the outbox publisher writes it
)

// captureWrites finds every row the transaction that inserted shipment id
// wrote (they share its xmin), in every table. Columns filled by a default
// that is not a constant (a serial, a timestamp) are left to it, as the
// API's statements leave them.
func captureWrites(ctx context.Context, db *sqlx.DB, id string) (writeTemplate, error) {
	t := writeTemplate{shipmentID: id}
	var xmin string
	if err := db.QueryRowContext(ctx, `SELECT xmin::text, state->>'reference_number' FROM shipments.shipments WHERE id = $1`, id).Scan(&xmin, &t.reference); err != nil {
		return t, fmt.Errorf("the API's shipment %s: %w", id, err)
	}
	var tables []string
	if err := db.SelectContext(ctx, &tables, `SELECT c.oid::regclass::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
		ORDER BY c.oid`); err != nil {
		return t, err
	}
	for _, table := range tables {
		var cols []struct {
			Name    string         `db:"name"`
			Type    string         `db:"type"`
			Default sql.NullString `db:"def"`
		}
		if err := db.SelectContext(ctx, &cols, `SELECT quote_ident(a.attname) AS name, format_type(a.atttypid, a.atttypmod) AS type,
			pg_get_expr(d.adbin, d.adrelid) AS def
			FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
			WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`, table); err != nil {
			return t, err
		}
		var kept []templateColumn
		var selects []string
		for _, c := range cols {
			if c.Default.Valid && volatileDefault.MatchString(c.Default.String) {
				continue
			}
			kind := copied
			switch {
			case c.Type == "xid8":
				kind = transactionID
			case strings.HasPrefix(c.Type, "timestamp"):
				kind = timestamp
			case c.Name == "uuid":
				kind = eventID
			}
			kept = append(kept, templateColumn{name: c.Name, kind: kind})
			selects = append(selects, c.Name+"::text")
		}
		if len(kept) == 0 {
			continue
		}
		rows, err := db.QueryContext(ctx, `SELECT `+strings.Join(selects, ", ")+` FROM `+table+` r WHERE r.xmin = $1::xid`, xmin)
		if err != nil {
			return t, fmt.Errorf("reading %s: %w", table, err)
		}
		for rows.Next() {
			row := templateRow{table: table, columns: append([]templateColumn(nil), kept...)}
			dest := make([]any, len(row.columns))
			for i := range row.columns {
				dest[i] = &row.columns[i].value
			}
			if err := rows.Scan(dest...); err != nil {
				rows.Close()
				return t, err
			}
			t.rows = append(t.rows, row)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return t, err
		}
	}
	if len(t.rows) < 2 {
		return t, fmt.Errorf("the API's transaction of shipment %s wrote %d rows; expected the shipment and its events", id, len(t.rows))
	}
	return t, nil
}

// volatileDefault matches defaults the API's statements leave to the server.
var volatileDefault = regexp.MustCompile(`(?i)nextval\(|now\(\)|current_timestamp|clock_timestamp|gen_random`)

// replay writes one copy, as the API's request does: the rate-limit
// counter in a statement of its own, then every row in one transaction.
// It returns the new shipment's id.
func (t writeTemplate) replay(ctx context.Context, db *sqlx.DB, account string, n int64) (string, error) {
	now := time.Now().UTC().Truncate(time.Second)
	if _, err := db.ExecContext(ctx, `INSERT INTO platform.rate_limit_windows (account_id, window_start, count) VALUES ($1, $2, 1)
		ON CONFLICT (account_id, window_start) DO UPDATE SET count = rate_limit_windows.count + 1 RETURNING count`,
		account, now.Truncate(time.Minute)); err != nil {
		return "", err
	}
	id, reference := ids.NewAt(ids.Shipment, now), "BENCH-"+strconv.FormatInt(n, 10)
	// Every id of the template is new in the copy, wherever it appears (an
	// event may name its own id or the shipment's in its payload).
	pairs := []string{t.shipmentID, id, strconv.Quote(t.reference), strconv.Quote(reference)}
	for _, r := range t.rows {
		for _, c := range r.columns {
			if c.kind == eventID && c.value.Valid {
				pairs = append(pairs, c.value.String, ids.New(ids.Event))
			}
		}
	}
	swap := strings.NewReplacer(pairs...)
	return id, postgres.InTx(ctx, db, func(tx *sqlx.Tx) error {
		for _, r := range t.rows {
			names, values, args := make([]string, len(r.columns)), make([]string, len(r.columns)), []any{}
			for i, c := range r.columns {
				names[i] = c.name
				switch {
				case c.kind == transactionID:
					values[i] = "pg_current_xact_id()"
					continue
				case !c.value.Valid:
					args = append(args, nil)
				case c.kind == timestamp:
					args = append(args, now)
				case c.value.String == t.reference:
					args = append(args, reference)
				default:
					args = append(args, swap.Replace(c.value.String))
				}
				values[i] = "$" + strconv.Itoa(len(args))
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO `+r.table+` (`+strings.Join(names, ", ")+`) VALUES (`+strings.Join(values, ", ")+`)`, args...); err != nil {
				return fmt.Errorf("copying a row of %s: %w", r.table, err)
			}
		}
		// The outbox also tells the stream's listeners, as the API's
		// transaction does (messaging.Outbox).
		return messaging.Notify(ctx, tx, shipmentsStream)
	})
}

// shipmentsStream is the stream the API's write publishes on.
const shipmentsStream = "shipments"

// describe says which rows a copy writes and how big they are.
func (t writeTemplate) describe() string {
	var parts []string
	for _, r := range t.rows {
		var sizes []string
		for _, c := range r.columns {
			if c.value.Valid && len(c.value.String) > 200 {
				sizes = append(sizes, fmt.Sprintf("`%s` %d bytes", strings.Trim(c.name, `"`), len(c.value.String)))
			}
			if c.name == "booking_due" {
				sizes = append(sizes, "`booking_due` "+c.value.String)
			}
		}
		parts = append(parts, fmt.Sprintf("a row of `%s` (%s)", r.table, strings.Join(sizes, ", ")))
	}
	return strings.Join(parts, " and ")
}
