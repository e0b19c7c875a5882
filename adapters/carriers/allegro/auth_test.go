package allegro

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"shipd/platform/carrier"
)

// One refresh serves every call while the access token lives; a 401 drops
// it and the next refresh uses the refresh token Allegro rotated to, the
// stored one being spent.
func TestTokenCachedAndRotated(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	s := testSettings()
	if err := c.ValidateCredentials(ctxT(t), s); err != nil {
		t.Fatalf("ValidateCredentials: %v", err)
	}
	for range 3 {
		if _, err := c.Track(ctxT(t), s, carrier.TrackingRequest{TrackingNumber: "A1"}); err != nil {
			t.Fatal(err)
		}
	}
	if f.tokenCount() != 1 {
		t.Errorf("%d token calls, want 1", f.tokenCount())
	}
	f.revokeAccess()
	if _, err := c.Track(ctxT(t), s, carrier.TrackingRequest{TrackingNumber: "A1"}); err != nil {
		t.Fatalf("after the access token was revoked: %v", err)
	}
	if f.tokenCount() != 2 {
		t.Errorf("%d token calls, want 2", f.tokenCount())
	}

	// A restarted process knows only the stored refresh token, which
	// Allegro has retired: the merchant is asked to authorize again.
	err := f.carrier().ValidateCredentials(ctxT(t), s)
	var r *carrier.Rejection
	if !errors.As(err, &r) || r.Field != "refreshToken" || !strings.Contains(r.Message, "invalid_grant") {
		t.Errorf("a retired refresh token: %v", err)
	}
}

func TestWrongCredentials(t *testing.T) {
	f := newFake(t)
	c := f.carrier()
	s := testSettings()
	s["clientSecret"] = "wrong"
	err := c.ValidateCredentials(ctxT(t), s)
	var r *carrier.Rejection
	if !errors.As(err, &r) || r.Field != "clientSecret" || !strings.Contains(r.Message, "invalid_client") {
		t.Errorf("a wrong secret: %v", err)
	}

	s = testSettings()
	s["refreshToken"] = "rt-made-up"
	if err := c.ValidateCredentials(ctxT(t), s); !slices.Equal(field(err), []string{"refreshToken"}) {
		t.Errorf("a wrong refresh token: %v", err)
	}

	before := f.tokenCount()
	err = c.ValidateCredentials(ctxT(t), carrier.Settings{"clientId": "x"})
	if !slices.Equal(field(err), []string{"clientSecret", "refreshToken"}) || f.tokenCount() != before {
		t.Errorf("missing credentials: %v (%d token calls)", err, f.tokenCount()-before)
	}

	// Every access token refused: a rejection, after one more refresh.
	f.mu.Lock()
	f.fail = []int{401, 401}
	f.mu.Unlock()
	c = f.carrier()
	_, err = c.Track(ctxT(t), testSettingsWith(f), carrier.TrackingRequest{TrackingNumber: "A1"})
	if !slices.Equal(field(err), []string{"refreshToken"}) {
		t.Errorf("401 twice: %v", err)
	}
}

// testSettingsWith gives the fake a fresh stored refresh token (the test's
// earlier refreshes spent the first) and the settings naming it.
func testSettingsWith(f *fake) carrier.Settings {
	f.mu.Lock()
	f.refreshTokens["rt-again"] = true
	f.mu.Unlock()
	s := testSettings()
	s["refreshToken"] = "rt-again"
	return s
}

func TestTokenEndpointUnavailable(t *testing.T) {
	f := newFake(t)
	c := New(Config{SandboxURL: f.srv.URL, SandboxAuthURL: f.srv.URL + "/down"})
	// The token path under /down is unknown to the fake: 404, a refusal.
	if err := c.ValidateCredentials(ctxT(t), testSettings()); err == nil || errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("a token endpoint answering 404: %v", err)
	}
	f.srv.Close()
	if err := c.ValidateCredentials(ctxT(t), testSettings()); !errors.Is(err, carrier.ErrUnavailable) {
		t.Errorf("no token endpoint: %v, want ErrUnavailable", err)
	}
}

func TestHosts(t *testing.T) {
	c := New(Config{})
	sandbox, prod := carrier.Settings{}, carrier.Settings{"sandboxMode": false}
	if c.apiHost(sandbox) != SandboxHost || c.authHost(sandbox) != SandboxAuthHost ||
		c.apiHost(prod) != ProductionHost || c.authHost(prod) != ProductionAuthHost {
		t.Errorf("hosts: %s %s %s %s", c.apiHost(sandbox), c.authHost(sandbox), c.apiHost(prod), c.authHost(prod))
	}
}

func TestInfo(t *testing.T) {
	info := New(Config{}).Info()
	secret := info.SecretKeys()
	if !secret["clientSecret"] || !secret["refreshToken"] || secret["clientId"] {
		t.Errorf("secret keys %v", secret)
	}
	byKey := map[string]carrier.Setting{}
	for _, s := range info.Settings {
		byKey[s.Key] = s
	}
	if d := byKey["defaultLabelFormat"]; d.Default != carrier.DefaultLabelFormat || !slices.Equal(d.Enum, info.LabelFormats) {
		t.Errorf("defaultLabelFormat %+v", d)
	}
	if byKey["sandboxMode"].Default != true || byKey["productType"].Default != ProductCourier {
		t.Error("sandboxMode or productType default")
	}
	if _, ok := byKey[carrier.DefaultPickupPointSetting]; !ok {
		t.Error("no defaultPickupPoint setting")
	}
	for _, p := range info.ProductTypes {
		if p.PickupPoint == "" {
			t.Errorf("product %s publishes no pickup point use", p.Code)
		}
	}
	if info.MaxParcels != MaxParcels || info.MaxParcels > carrier.MaxParcelsPerShipment {
		t.Errorf("MaxParcels %d", info.MaxParcels)
	}
	if errs := info.ValidateSettings(testSettings()); len(errs) != 0 {
		t.Errorf("the test settings do not validate: %v", errs)
	}
}
