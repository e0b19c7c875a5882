package allegro

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"shipd/adapters/carriers/internal/carrierhttp"
	"shipd/platform/carrier"
)

// storedChannel is the channels module's keeper of one channel, in memory:
// the stored refresh token, renewed by compare-and-swap as the module
// renews it (ADR 0042).
type storedChannel struct {
	mu       sync.Mutex
	token    string
	renewals int
	// beforeRenew, when set, runs before each renewal is stored (a slow
	// write); failRenew makes renewals fail (the store unreachable).
	beforeRenew func()
	failRenew   error
}

func (k *storedChannel) Stored(context.Context, string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.token, nil
}

func (k *storedChannel) Renew(_ context.Context, key string, retired []string, renewed string) error {
	if key != settingRefreshToken {
		return errors.New("renewed " + key)
	}
	if k.beforeRenew != nil {
		k.beforeRenew()
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.failRenew != nil {
		return k.failRenew
	}
	if slices.Contains(retired, k.token) {
		k.token = renewed
		k.renewals++
	}
	return nil
}

// settings are the channel's settings as a facade reads them now: the
// stored token, and the keeper.
func (k *storedChannel) settings() carrier.Settings {
	s := testSettings()
	s["refreshToken"], _ = k.Stored(context.Background(), settingRefreshToken)
	return s.WithKeeper(k)
}

func (k *storedChannel) stored() string {
	s, _ := k.Stored(context.Background(), settingRefreshToken)
	return s
}

// A rotated refresh token is stored for every process: a restarted process
// (a new adapter) reading the channel again refreshes with it, and the
// stored one keeps working after each rotation.
func TestRotatedRefreshTokenStored(t *testing.T) {
	f := newFake(t)
	k := &storedChannel{token: testRefreshToken}
	if err := f.carrier().ValidateCredentials(ctxT(t), k.settings()); err != nil {
		t.Fatal(err)
	}
	if k.stored() != "rt-1" || k.renewals != 1 {
		t.Fatalf("stored %q after %d renewals, want rt-1", k.stored(), k.renewals)
	}
	for restart := range 3 {
		c := f.carrier()
		if _, err := c.Track(ctxT(t), k.settings(), carrier.TrackingRequest{TrackingNumber: "A1"}); err != nil {
			t.Fatalf("restart %d: %v", restart, err)
		}
	}
	if k.stored() != "rt-4" || f.tokenCount() != 4 {
		t.Errorf("stored %q after %d token calls, want rt-4 after 4", k.stored(), f.tokenCount())
	}

	// Settings read before a rotation still find the access token it got,
	// through this process's memory: one refresh serves both.
	c := f.carrier()
	stale := k.settings()
	if _, err := c.Track(ctxT(t), stale, carrier.TrackingRequest{TrackingNumber: "A1"}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []carrier.Settings{stale, k.settings()} {
		if _, err := c.Track(ctxT(t), s, carrier.TrackingRequest{TrackingNumber: "A1"}); err != nil {
			t.Fatal(err)
		}
	}
	if f.tokenCount() != 5 {
		t.Errorf("%d token calls, want 5: settings read before the rotation refreshed again", f.tokenCount())
	}
}

// Two processes refresh with the same stored token at once: Allegro takes
// it from the first and refuses it to the second, which waits for the
// first to store its successor and refreshes with that; neither leaves the
// other a retired token, and the stored one works afterwards.
func TestTwoProcessesRefreshAtOnce(t *testing.T) {
	f := newFake(t)
	k := &storedChannel{token: testRefreshToken}
	first, second := f.carrier(), f.carrier()
	firstSettings, secondSettings := k.settings(), k.settings()

	// The first process's write is slow: the second is refused meanwhile.
	refused := make(chan struct{})
	k.beforeRenew = func() {
		k.beforeRenew = nil
		<-refused
	}
	done := make(chan error, 1)
	go func() { done <- first.ValidateCredentials(ctxT(t), firstSettings) }()
	for f.tokenCount() < 1 {
		time.Sleep(time.Millisecond)
	}
	go func() {
		for f.tokenCount() < 2 { // the second's refusal
			time.Sleep(time.Millisecond)
		}
		close(refused)
	}()
	if err := second.ValidateCredentials(ctxT(t), secondSettings); err != nil {
		t.Errorf("the second process: %v", err)
	}
	if err := <-done; err != nil {
		t.Errorf("the first process: %v", err)
	}
	if k.stored() != "rt-2" || k.renewals != 2 || f.tokenCount() != 3 {
		t.Errorf("stored %q after %d renewals and %d token calls, want rt-2, 2, 3", k.stored(), k.renewals, f.tokenCount())
	}
	if err := f.carrier().ValidateCredentials(ctxT(t), k.settings()); err != nil {
		t.Errorf("a restarted process: %v", err)
	}

	// Many calls of both at once, access tokens revoked between rounds.
	for round := range 4 {
		f.revokeAccess()
		var wg sync.WaitGroup
		for i := range 8 {
			c := first
			if i%2 == 1 {
				c = second
			}
			wg.Go(func() {
				if _, err := c.Track(ctxT(t), k.settings(), carrier.TrackingRequest{TrackingNumber: "A1"}); err != nil {
					t.Errorf("round %d, call %d: %v", round, i, err)
				}
			})
		}
		wg.Wait()
	}
	if err := f.carrier().ValidateCredentials(ctxT(t), k.settings()); err != nil {
		t.Errorf("a restarted process after the rounds: %v", err)
	}
}

// A token the merchant pasted while a process held a rotation in memory is
// kept; a token no one renewed stays refused, after the wait; a store that
// cannot be written leaves the token in memory until the next refresh
// stores it.
func TestRenewalKeepsWhatItDidNotRetire(t *testing.T) {
	f := newFake(t)
	k := &storedChannel{token: testRefreshToken, failRenew: errors.New("channels unreachable")}
	c := New(Config{SandboxURL: f.srv.URL, SandboxAuthURL: f.srv.URL, PollInterval: time.Millisecond, RenewalWait: 200 * time.Millisecond})
	stale := k.settings()
	if err := c.ValidateCredentials(ctxT(t), stale); err != nil {
		t.Fatalf("a store that cannot be written fails the call: %v", err)
	}
	if k.stored() != testRefreshToken {
		t.Fatalf("stored %q", k.stored())
	}
	k.mu.Lock()
	k.failRenew = nil
	k.mu.Unlock()
	f.revokeAccess()
	c.tokens = carrierhttp.Tokens{} // the access token expired
	if _, err := c.Track(ctxT(t), stale, carrier.TrackingRequest{TrackingNumber: "A1"}); err != nil {
		t.Fatal(err)
	}
	if k.stored() != "rt-2" {
		t.Errorf("the next refresh stored %q, want rt-2 over the token it had retired first", k.stored())
	}

	// The merchant authorizes again and pastes the new token while this
	// process rotates the old one: the pasted token stays.
	f.mu.Lock()
	f.refreshTokens["rt-pasted"] = true
	f.mu.Unlock()
	old := k.settings()
	k.mu.Lock()
	k.token = "rt-pasted"
	k.mu.Unlock()
	c.tokens = carrierhttp.Tokens{} // the access token expired
	if _, err := c.Track(ctxT(t), old, carrier.TrackingRequest{TrackingNumber: "A1"}); err != nil {
		t.Fatal(err)
	}
	if k.stored() != "rt-pasted" {
		t.Errorf("a rotation replaced the pasted token: %q", k.stored())
	}

	// Retired and renewed by no one: refused on refreshToken after the wait.
	k.mu.Lock()
	k.token = "rt-retired"
	k.mu.Unlock()
	began := time.Now()
	err := New(Config{SandboxURL: f.srv.URL, SandboxAuthURL: f.srv.URL, RenewalWait: 200 * time.Millisecond}).ValidateCredentials(ctxT(t), k.settings())
	if !slices.Equal(field(err), []string{"refreshToken"}) || time.Since(began) < 100*time.Millisecond || time.Since(began) > 5*time.Second {
		t.Errorf("a token no one renewed: %v after %s", err, time.Since(began))
	}
}
