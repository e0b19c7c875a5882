package carrier

import (
	"context"
	"maps"
)

// CredentialKeeper keeps the credentials a carrier renews on its own: an
// OAuth server that rotates refresh tokens (Allegro) answers each refresh
// with a new one and retires the one used, so a token the adapter got must
// be stored before any process needs the next one (ADR 0042). The channels
// module implements it for one channel, and hands it to adapters with the
// channel's settings (Settings.Keeper); it stores the value sealed like
// every secret setting, for every process, without an event and without a
// new version or update time of the channel.
type CredentialKeeper interface {
	// Stored is the value of the secret setting key as stored now: another
	// process may have renewed it since the settings were read.
	Stored(ctx context.Context, key string) (string, error)
	// Renew stores renewed as the secret setting key if the value stored
	// is one of retired, the values the adapter knows the carrier no
	// longer takes (a compare-and-swap): any other value (the merchant's
	// new one, or another process's newer one) is kept. It returns nil in
	// both cases; an error only when it could not tell.
	Renew(ctx context.Context, key string, retired []string, renewed string) error
}

// keeperSetting is where Settings carry their channel's keeper: no
// provider's setting can have this key (ValidateSettings refuses unknown
// keys, and JSON would give a string, never a CredentialKeeper), so a
// keeper is only ever one the channels module put there.
const keeperSetting = "\x00credentialKeeper"

// WithKeeper returns a copy of s that hands k to the adapter it is passed
// to, with the rest of the channel's settings; s is left as it is.
func (s Settings) WithKeeper(k CredentialKeeper) Settings {
	out := maps.Clone(s)
	if out == nil {
		out = Settings{}
	}
	out[keeperSetting] = k
	return out
}

// Keeper is the keeper of the channel whose settings s are, or nil when
// the caller gave none (an adapter then keeps renewed credentials in its
// process's memory only).
func (s Settings) Keeper() CredentialKeeper {
	k, _ := s[keeperSetting].(CredentialKeeper)
	return k
}
