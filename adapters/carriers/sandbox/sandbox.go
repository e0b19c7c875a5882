// Package sandbox is a built-in carrier that behaves like a real one but runs
// offline, so the whole service can be tried and tested without a carrier
// account. Documented trigger values exercise the failure paths:
//
//   - clientSecret "invalid": the carrier rejects the credentials.
//   - clientSecret "unavailable": the carrier cannot be reached (503 to the caller).
package sandbox

import (
	"context"
	"fmt"

	"shipd/platform/carrier"
)

// Code is the provider code of the sandbox carrier.
const Code = "sandbox"

// Trigger values of clientSecret.
const (
	SecretInvalid     = "invalid"
	SecretUnavailable = "unavailable"
)

// Carrier is the sandbox carrier.
type Carrier struct{}

// New returns the sandbox carrier.
func New() *Carrier { return &Carrier{} }

var _ carrier.Provider = (*Carrier)(nil)

// Info describes the sandbox's settings, products and label formats.
func (c *Carrier) Info() carrier.ProviderInfo {
	return carrier.ProviderInfo{
		Code: Code,
		Name: "Sandbox carrier (offline, for trying the API)",
		Settings: []carrier.Setting{
			{Key: "clientId", Type: carrier.TypeString, Required: true, Description: "Client id of the carrier account."},
			{Key: "clientSecret", Type: carrier.TypeString, Required: true, Secret: true,
				Description: `Client secret. "invalid" makes validation fail; "unavailable" makes the carrier unreachable.`},
			{Key: "productType", Type: carrier.TypeString, Enum: []string{"STANDARD", "EXPRESS"}, Default: "STANDARD",
				Description: "Product used for shipments; switched to its COD variant when cash on delivery is asked for."},
			{Key: "sandboxMode", Type: carrier.TypeBoolean, Default: true, Description: "Use the carrier's test environment."},
			{Key: "defaultLabelFormat", Type: carrier.TypeString, Enum: []string{"pdf", "zpl", "epl"}, Default: "pdf",
				Description: "Label format when a shipment names none."},
		},
		ProductTypes: []carrier.ProductType{
			{Code: "STANDARD", Name: "Standard parcel", CODProduct: "STANDARD_COD", SupportsCOD: true},
			{Code: "EXPRESS", Name: "Express parcel", CODProduct: "EXPRESS_COD", SupportsCOD: true},
		},
		LabelFormats: []string{"pdf", "zpl", "epl"},
		SupportsCOD:  true,
	}
}

// ValidateCredentials accepts any client id and secret except the trigger values.
func (c *Carrier) ValidateCredentials(ctx context.Context, s carrier.Settings) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: %v", carrier.ErrUnavailable, err)
	}
	switch s.String("clientSecret") {
	case SecretInvalid:
		return &carrier.Rejection{Field: "clientSecret", Message: "the carrier rejected the client credentials (invalid_client)"}
	case SecretUnavailable:
		return fmt.Errorf("%w: sandbox carrier answered 503 Service Unavailable", carrier.ErrUnavailable)
	}
	return nil
}
