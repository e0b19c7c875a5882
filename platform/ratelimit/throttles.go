package ratelimit

import (
	"context"
	"time"

	"shipd/platform/auth"
)

// The documented numbers of ADR 0046 (README, "Limits").
var (
	// SignInBackoff slows wrong passwords for one e-mail address from one
	// client address: five free, then 1 s, 2 s, 4 s ... up to 15 minutes.
	// The right password after the wait signs in; other addresses are not
	// slowed at all.
	SignInBackoff = Backoff{Free: 5, First: time.Second, Max: 15 * time.Minute}
	// APIKeyBackoff slows wrong API keys from one client address: ten
	// free, then 1 s, 2 s, 4 s ... up to 15 minutes.
	APIKeyBackoff = Backoff{Free: 10, First: time.Second, Max: 15 * time.Minute}
)

// SignInsPerClient is how many sign-in attempts, right or wrong, one
// client address may make per Window, whichever e-mail addresses it names.
const SignInsPerClient = 30

// FailedKeys is auth's FailedKeys, counted per client address here.
func (l *Limiter) FailedKeys() auth.FailedKeys { return failedKeys{l.Failures()} }

type failedKeys struct{ f *Failures }

func (k failedKeys) Wait(ctx context.Context, addr string) (time.Duration, error) {
	return k.f.Wait(ctx, "api-key:"+addr)
}

func (k failedKeys) Failed(ctx context.Context, addr string) error {
	_, err := k.f.Fail(ctx, "api-key:"+addr, APIKeyBackoff)
	return err
}

type countedKey struct{}

// Counted marks ctx as a request already counted against its account (a
// dashboard page): the in-process API calls it makes are not counted again.
// Only code in this process can set it; no header can.
func Counted(ctx context.Context) context.Context { return context.WithValue(ctx, countedKey{}, true) }

func wasCounted(ctx context.Context) bool { v, _ := ctx.Value(countedKey{}).(bool); return v }
