package ports

// The request bodies and their decoding, for the fuzz tests of ports_test.
type (
	CreateRequest = createRequest
	UpdateRequest = updateRequest
)

var DecodeSettings = decodeSettings
