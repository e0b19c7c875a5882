package domain

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// Request is a client's request to track a carrier's parcel: what New
// makes a tracking parcel of. Nil check settings were not given (the
// defaults); field problems are named by the API's paths.
type Request struct {
	TrackingNumber  string // as the client wrote it; kept as carriers print it (NormalizeTrackingNumber)
	ChannelID       string
	Recipient       Recipient // as the client wrote it; kept without white space around
	CheckDelayHours *int
	MaxChecks       *int
	ExternalData    map[string]any
}

// The bounds of a client's fields, in characters.
const (
	MaxTrackingNumberLength = 64 // in bytes of the normalised number: letters, digits and hyphens
	maxRecipientText        = 255
	maxRecipientPhone       = 50
)

// NormalizeTrackingNumber writes a tracking number the way carriers print
// it: without white space, in capitals ("sb 1234 5678" is SB12345678).
func NormalizeTrackingNumber(s string) string {
	return strings.ToUpper(strings.Join(strings.Fields(s), ""))
}

// Check names every problem of the request as a validation fault; nil when
// it has none. New checks the same; Check is for callers that answer these
// problems before they look up the channel.
func (r Request) Check() error {
	errs := fault.FieldErrors{}
	if r.TrackingNumber == "" {
		errs.Add("tracking_number", "is required")
	} else if reason := numberProblem(NormalizeTrackingNumber(r.TrackingNumber)); reason != "" {
		errs.Add("tracking_number", reason)
	}
	if r.ChannelID == "" {
		errs.Add("shipping_channel_id", "is required")
	}
	// The recipient as written, white space included, as the API always
	// counted it.
	maxLength(errs, "recipient_name", r.Recipient.Name, maxRecipientText)
	if r.Recipient.Email != "" {
		if p := carrier.NameProblem(r.Recipient.Email); p != "" {
			errs.Add("recipient_email", p)
		} else if !carrier.IsEmailAddress(r.Recipient.Email) {
			errs.Add("recipient_email", "must be a valid email address")
		} else {
			maxLength(errs, "recipient_email", r.Recipient.Email, maxRecipientText)
		}
	}
	maxLength(errs, "recipient_phone", r.Recipient.Phone, maxRecipientPhone)
	within(errs, "check_delay_hours", r.CheckDelayHours, MinCheckDelayHours, MaxCheckDelayHours)
	within(errs, "max_checks", r.MaxChecks, MinMaxChecks, MaxMaxChecks)
	if p := carrier.MetadataProblem(r.ExternalData); p != "" {
		errs.Add("external_data", p)
	}
	return errs.Err()
}

// numberProblem says what is wrong with a normalised tracking number, or "".
func numberProblem(n string) string {
	if n == "" {
		return "must not be empty"
	}
	if len(n) > MaxTrackingNumberLength {
		return "must be at most " + strconv.Itoa(MaxTrackingNumberLength) + " characters"
	}
	for _, c := range n {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '-' {
			return "may hold only letters, digits and hyphens"
		}
	}
	return ""
}

// maxLength adds the problem of a name breaking carrier.NameProblem's rule,
// else that of one longer than max characters.
func maxLength(errs fault.FieldErrors, path, s string, max int) {
	if p := carrier.NameProblem(s); p != "" {
		errs.Add(path, p)
	} else if utf8.RuneCountInString(s) > max {
		errs.Add(path, "must be at most "+strconv.Itoa(max)+" characters")
	}
}

// within adds the problem of a setting given outside [min, max].
func within(errs fault.FieldErrors, path string, v *int, min, max int) {
	switch {
	case v == nil:
	case *v < min:
		errs.Add(path, "must be at least "+strconv.Itoa(min))
	case *v > max:
		errs.Add(path, "must be at most "+strconv.Itoa(max))
	}
}

// CheckEdit names every problem of an edit of the recipient (nil: left as
// it is), as Edit does; nil when it has none. An email address is checked
// without white space around it, and "" clears it; lengths count what was
// written, white space included, as the API always counted them.
func CheckEdit(name, email, phone *string, externalData map[string]any) error {
	errs := fault.FieldErrors{}
	if p := carrier.MetadataProblem(externalData); p != "" {
		errs.Add("external_data", p)
	}
	if name != nil {
		maxLength(errs, "recipient_name", *name, maxRecipientText)
	}
	if email != nil {
		maxLength(errs, "recipient_email", *email, maxRecipientText)
		if e := strings.TrimSpace(*email); e != "" && carrier.NameProblem(e) == "" && !carrier.IsEmailAddress(e) {
			errs.Add("recipient_email", "must be a valid email address")
		}
	}
	if phone != nil {
		maxLength(errs, "recipient_phone", *phone, maxRecipientPhone)
	}
	return errs.Err()
}
