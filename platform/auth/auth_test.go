package auth_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/platform/auth"
	"shipd/platform/clock"
	"shipd/platform/postgres/pgtest"
)

func openDB(t testing.TB) *sqlx.DB {
	t.Helper()
	db := pgtest.Open(t)
	return db
}

func newStore(t testing.TB) (*auth.Store, *sqlx.DB) {
	db := openDB(t)
	return auth.NewStore(db, clock.Real{}), db
}

func createKey(t testing.TB, s *auth.Store, req auth.NewKeyRequest) (auth.KeyInfo, string) {
	t.Helper()
	info, key, err := s.CreateKey(t.Context(), req)
	if err != nil {
		t.Fatalf("CreateKey(%+v): %v", req, err)
	}
	return info, key
}

var keyFormat = regexp.MustCompile(`^shp_[0-9A-Za-z]{40}$`)

func TestCreateKeyMakesAccountAndKey(t *testing.T) {
	db := openDB(t)
	clk := clock.NewManual(time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC))
	s := auth.NewStore(db, clk)
	ctx := t.Context()
	info, key := createKey(t, s, auth.NewKeyRequest{AccountName: "acme", Name: "ci"})

	if !keyFormat.MatchString(key) {
		t.Errorf("key = %q, want shp_ and 40 base62 characters", key)
	}
	if !strings.HasPrefix(info.ID, "key_") || !strings.HasPrefix(info.AccountID, "acc_") {
		t.Errorf("ids: key %q, account %q", info.ID, info.AccountID)
	}
	if info.Prefix != key[:10] || info.Name != "ci" || info.AccountName != "acme" {
		t.Errorf("info = %+v", info)
	}

	var acc struct {
		ID        string `db:"id"`
		Plan      string `db:"plan"`
		RateLimit *int   `db:"rate_limit"`
	}
	if err := db.GetContext(ctx, &acc, `SELECT id, plan, rate_limit FROM platform.accounts WHERE name = 'acme'`); err != nil {
		t.Fatalf("account row: %v", err)
	}
	if acc.ID != info.AccountID || acc.Plan != "free" || acc.RateLimit != nil {
		t.Errorf("account row = %+v, want id %s, plan free, no custom limit", acc, info.AccountID)
	}

	// A second key for the same account reuses it. A second later, so that
	// the list's order by (created_at, id) is the order of creation: ids of
	// one second are in no order (ADR 0011).
	clk.Advance(time.Second)
	info2, key2 := createKey(t, s, auth.NewKeyRequest{AccountName: "acme"})
	if info2.AccountID != info.AccountID || key2 == key || info2.ID == info.ID {
		t.Errorf("second key: %+v / %q", info2, key2)
	}
	var accounts int
	if err := db.GetContext(ctx, &accounts, `SELECT count(*) FROM platform.accounts`); err != nil || accounts != 1 {
		t.Errorf("accounts = %d, %v; want 1", accounts, err)
	}

	keys, err := s.ListKeys(ctx, "acme")
	if err != nil || len(keys) != 2 || keys[0].ID != info.ID || keys[1].ID != info2.ID {
		t.Errorf("ListKeys(acme) = %+v, %v", keys, err)
	}
}

func TestCreateKeyStoresOnlyAHash(t *testing.T) {
	s, db := newStore(t)
	ctx := t.Context()
	info, key := createKey(t, s, auth.NewKeyRequest{AccountName: "acme", Name: "ci"})

	var hash []byte
	if err := db.GetContext(ctx, &hash, `SELECT key_hash FROM platform.api_keys WHERE id = $1`, info.ID); err != nil {
		t.Fatal(err)
	}
	want := sha256.Sum256([]byte(key))
	if !bytes.Equal(hash, want[:]) {
		t.Errorf("key_hash = %x, want sha256(key) %x", hash, want)
	}

	// Every column of every row, as text: the key must be in none of them.
	var rows []string
	if err := db.SelectContext(ctx, &rows, `
		SELECT k::text FROM platform.api_keys k
		UNION ALL SELECT a::text FROM platform.accounts a`); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("rows = %v", rows)
	}
	for _, row := range rows {
		if strings.Contains(row, key) || strings.Contains(row, key[10:]) {
			t.Errorf("a stored row contains the key: %s", row)
		}
	}
}

func TestCreateKeyRejects(t *testing.T) {
	s, _ := newStore(t)
	zero := 0
	for name, req := range map[string]auth.NewKeyRequest{
		"no account name": {Name: "x"},
		"zero rate limit": {AccountName: "acme", RateLimit: &zero},
	} {
		if _, key, err := s.CreateKey(t.Context(), req); err == nil || key != "" {
			t.Errorf("%s: CreateKey = %q, %v; want an error", name, key, err)
		}
	}
}

func TestAuthenticate(t *testing.T) {
	s, _ := newStore(t)
	ctx := t.Context()
	info, key := createKey(t, s, auth.NewKeyRequest{AccountName: "acme"})

	p, err := s.Authenticate(ctx, key)
	if err != nil {
		t.Fatalf("Authenticate: %v", err)
	}
	want := auth.Principal{AccountID: info.AccountID, KeyID: info.ID, Plan: auth.PlanFree, RateLimit: 60, Permissions: auth.AllPermissions}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("principal = %+v\nwant %+v", p, want)
	}
}

func TestAuthenticatePlanLimits(t *testing.T) {
	s, _ := newStore(t)
	ctx := t.Context()
	limitOf := func(key string) (auth.Plan, int) {
		t.Helper()
		p, err := s.Authenticate(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		return p.Plan, p.RateLimit
	}
	_, key := createKey(t, s, auth.NewKeyRequest{AccountName: "acme"})
	if plan, limit := limitOf(key); plan != auth.PlanFree || limit != 60 {
		t.Errorf("new account: %s %d, want free 60", plan, limit)
	}

	createKey(t, s, auth.NewKeyRequest{AccountName: "acme", Plan: auth.PlanStandard})
	if plan, limit := limitOf(key); plan != auth.PlanStandard || limit != 300 {
		t.Errorf("after upgrade: %s %d, want standard 300", plan, limit)
	}

	custom := 7
	createKey(t, s, auth.NewKeyRequest{AccountName: "acme", RateLimit: &custom})
	if plan, limit := limitOf(key); plan != auth.PlanStandard || limit != 7 {
		t.Errorf("with custom limit: %s %d, want standard 7", plan, limit)
	}

	// A key created without plan or limit leaves both as they are.
	createKey(t, s, auth.NewKeyRequest{AccountName: "acme"})
	if plan, limit := limitOf(key); plan != auth.PlanStandard || limit != 7 {
		t.Errorf("after a plain new key: %s %d, want standard 7", plan, limit)
	}

	_, ent := createKey(t, s, auth.NewKeyRequest{AccountName: "bigco", Plan: auth.PlanEnterprise})
	if plan, limit := limitOf(ent); plan != auth.PlanEnterprise || limit != 1200 {
		t.Errorf("enterprise: %s %d, want enterprise 1200", plan, limit)
	}
}

func TestAuthenticateRejects(t *testing.T) {
	s, _ := newStore(t)
	ctx := t.Context()
	info, key := createKey(t, s, auth.NewKeyRequest{AccountName: "acme"})
	_, other := createKey(t, s, auth.NewKeyRequest{AccountName: "acme"})

	if err := s.RevokeKey(ctx, info.ID); err != nil {
		t.Fatalf("RevokeKey: %v", err)
	}
	if err := s.RevokeKey(ctx, info.ID); err == nil {
		t.Error("revoking a revoked key succeeded")
	}
	unknown := "shp_" + strings.Repeat("a", 40)
	for name, k := range map[string]string{
		"revoked":           key,
		"empty":             "",
		"garbage":           "hello",
		"prefix only":       "shp_",
		"one char short":    key[:len(key)-1],
		"one char long":     key + "a",
		"well formed, none": unknown,
		"upper-case prefix": "SHP_" + key[4:],
	} {
		if _, err := s.Authenticate(ctx, k); !errors.Is(err, auth.ErrUnknownKey) {
			t.Errorf("%s: Authenticate(%q) error = %v, want ErrUnknownKey", name, k, err)
		}
	}
	if _, err := s.Authenticate(ctx, other); err != nil {
		t.Errorf("revoking one key broke another: %v", err)
	}
}

func TestKeyPermissions(t *testing.T) {
	s, _ := newStore(t)
	_, key := createKey(t, s, auth.NewKeyRequest{AccountName: "acme", Permissions: []auth.Permission{auth.ShipmentsRead, auth.TrackingWrite}})
	p, err := s.Authenticate(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Can(auth.ShipmentsRead) || !p.Can(auth.TrackingWrite) {
		t.Errorf("principal lacks a granted permission: %v", p.Permissions)
	}
	if p.Can(auth.ShipmentsWrite) || p.Can(auth.ChannelsRead) {
		t.Errorf("principal holds a permission it was not given: %v", p.Permissions)
	}
}

func TestParsePermissions(t *testing.T) {
	tests := []struct {
		in      string
		want    []auth.Permission
		wantErr bool
	}{
		{"", auth.AllPermissions, false},
		{"   ", auth.AllPermissions, false},
		{"shipments:read", []auth.Permission{auth.ShipmentsRead}, false},
		{" shipments:read , channels:write ", []auth.Permission{auth.ShipmentsRead, auth.ChannelsWrite}, false},
		{"shipments:read,channels:write,shipments:read", []auth.Permission{auth.ShipmentsRead, auth.ChannelsWrite}, false},
		{"shipments:delete", nil, true},
		{"shipments:read,", nil, true},
		{"Shipments:Read", nil, true},
		{"*", nil, true},
	}
	for _, tt := range tests {
		got, err := auth.ParsePermissions(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParsePermissions(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParsePermissions(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	if _, err := auth.ParsePermissions("nope"); err == nil || !strings.Contains(err.Error(), "shipments:write") {
		t.Errorf("unknown permission error %v does not list the known ones", err)
	}
}

func TestParsePlan(t *testing.T) {
	for _, ok := range []string{"free", "standard", "enterprise"} {
		if p, err := auth.ParsePlan(ok); err != nil || string(p) != ok {
			t.Errorf("ParsePlan(%q) = %q, %v", ok, p, err)
		}
	}
	for _, bad := range []string{"", "Free", "gold", " free"} {
		if p, err := auth.ParsePlan(bad); err == nil {
			t.Errorf("ParsePlan(%q) = %q, want an error", bad, p)
		}
	}
}

func TestRequestsPerMinute(t *testing.T) {
	custom := 42
	tests := []struct {
		plan   auth.Plan
		custom *int
		want   int
	}{
		{auth.PlanFree, nil, 60},
		{auth.PlanStandard, nil, 300},
		{auth.PlanEnterprise, nil, 1200},
		{auth.PlanFree, &custom, 42},
		{auth.PlanEnterprise, &custom, 42},
	}
	for _, tt := range tests {
		if got := tt.plan.RequestsPerMinute(tt.custom); got != tt.want {
			t.Errorf("%s.RequestsPerMinute(%v) = %d, want %d", tt.plan, tt.custom, got, tt.want)
		}
	}
}
