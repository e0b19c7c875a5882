package dpdpl

// The strict schema the fake holds traffic to. The operations, their
// messages and namespace come from the vendor's WSDL in testdata (read at
// test time); the element types, which the WSDL only imports from the live
// service, are written here from the community clients named in dpdpl.go
// (the Axis-generated Java types of piatekdawid/dpd-services-integration-pl
// give element names, xsd types, enumerations and which repeat). Strict: an
// element a type does not name is refused, one that does not repeat may
// appear once, a simple value must parse as its xsd type or be one of its
// enumeration. The schema makes every element optional (minOccurs 0, as
// JAX-WS publishes it); what DPD needs is its business validation, which the
// fake plays in fake_test.go, except the parameters listed in required.

import (
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// xmlNode is an element of a parsed document, namespaces resolved.
type xmlNode struct {
	Name     xml.Name
	Attrs    []xml.Attr
	Children []*xmlNode
	Text     string
}

// parseXML reads a whole document into its root element.
func parseXML(r io.Reader) (*xmlNode, error) {
	dec := xml.NewDecoder(r)
	var stack []*xmlNode
	var root *xmlNode
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &xmlNode{Name: t.Name, Attrs: t.Attr}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.Children = append(p.Children, n)
			} else if root == nil {
				root = n
			} else {
				return nil, fmt.Errorf("a second root element %s", t.Name.Local)
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].Text += string(t)
			} else if strings.TrimSpace(string(t)) != "" {
				return nil, fmt.Errorf("text outside the root element")
			}
		}
	}
	if root == nil {
		return nil, fmt.Errorf("no element")
	}
	return root, nil
}

func (n *xmlNode) child(local string) *xmlNode {
	for _, c := range n.Children {
		if c.Name.Local == local {
			return c
		}
	}
	return nil
}

func (n *xmlNode) all(local string) []*xmlNode {
	var out []*xmlNode
	for _, c := range n.Children {
		if c.Name.Local == local {
			out = append(out, c)
		}
	}
	return out
}

// text is the trimmed text of the child at path ("receiver/postalCode").
func (n *xmlNode) text(path string) string {
	cur := n
	for _, p := range strings.Split(path, "/") {
		if cur = cur.child(p); cur == nil {
			return ""
		}
	}
	return strings.TrimSpace(cur.Text)
}

// wsdl is what the fake reads of the vendor's WSDL: every operation of the
// portType, the element of its input message, the namespace.
type wsdl struct {
	targetNS string
	inputs   map[string]xml.Name // operation → element of its input message part
}

func loadWSDL(t testing.TB, path string) wsdl {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var defs struct {
		TargetNS string `xml:"targetNamespace,attr"`
		Messages []struct {
			Name  string `xml:"name,attr"`
			Parts []struct {
				Name    string `xml:"name,attr"`
				Element string `xml:"element,attr"`
			} `xml:"part"`
		} `xml:"message"`
		PortTypes []struct {
			Operations []struct {
				Name  string `xml:"name,attr"`
				Input struct {
					Message string `xml:"message,attr"`
				} `xml:"input"`
			} `xml:"operation"`
		} `xml:"portType"`
	}
	if err := xml.Unmarshal(raw, &defs); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	w := wsdl{targetNS: defs.TargetNS, inputs: map[string]xml.Name{}}
	parts := map[string]string{}
	for _, m := range defs.Messages {
		if len(m.Parts) != 1 || m.Parts[0].Name != "parameters" && m.Parts[0].Name != "fault" {
			t.Fatalf("%s: message %s is not document/literal wrapped", path, m.Name)
		}
		parts[m.Name] = m.Parts[0].Element
	}
	for _, pt := range defs.PortTypes {
		for _, op := range pt.Operations {
			el := parts[strings.TrimPrefix(op.Input.Message, "tns:")]
			if !strings.HasPrefix(el, "tns:") {
				t.Fatalf("%s: operation %s has no input element", path, op.Name)
			}
			w.inputs[op.Name] = xml.Name{Space: defs.TargetNS, Local: strings.TrimPrefix(el, "tns:")}
		}
	}
	if len(w.inputs) == 0 {
		t.Fatalf("%s: no operations", path)
	}
	return w
}

// field is one element of a complex type; many: maxOccurs unbounded.
type field struct {
	name, typ string
	many      bool
}

// schemaTypes are the complex types, by the XSD's type name [C]. The
// wrappers of the operations are listed by their element names.
var schemaTypes = map[string][]field{
	// dpdservices: requests.
	"findPostalCodeV1": {{"postalCodeV1", "postalCodeV1", false}, {"authDataV1", "authDataV1", false}},
	"postalCodeV1":     {{"countryCode", "string", false}, {"zipCode", "string", false}},
	"authDataV1":       {{"login", "string", false}, {"masterFid", "int", false}, {"password", "string", false}},
	"generatePackagesNumbersV4": {{"openUMLFeV3", "openUMLFeV3", false}, {"pkgNumsGenerationPolicyV1", "pkgNumsGenerationPolicyV1", false},
		{"langCode", "string", false}, {"authDataV1", "authDataV1", false}},
	"openUMLFeV3": {{"packages", "packageOpenUMLFeV3", true}},
	"packageOpenUMLFeV3": {{"parcels", "parcelOpenUMLFeV1", true}, {"payerType", "payerTypeEnumOpenUMLFeV1", false},
		{"receiver", "packageAddressOpenUMLFeV1", false}, {"ref1", "string", false}, {"ref2", "string", false}, {"ref3", "string", false},
		{"reference", "string", false}, {"sender", "packageAddressOpenUMLFeV1", false}, {"services", "servicesOpenUMLFeV4", false},
		{"thirdPartyFID", "int", false}},
	"packageAddressOpenUMLFeV1": {{"address", "string", false}, {"city", "string", false}, {"company", "string", false},
		{"countryCode", "string", false}, {"email", "string", false}, {"fid", "int", false}, {"name", "string", false},
		{"phone", "string", false}, {"postalCode", "string", false}},
	"parcelOpenUMLFeV1": {{"reference", "string", false}, {"weight", "string", false}, {"sizeX", "string", false},
		{"sizeY", "string", false}, {"sizeZ", "string", false}, {"content", "string", false}, {"customerData1", "string", false},
		{"customerData2", "string", false}, {"customerData3", "string", false}},
	"servicesOpenUMLFeV4": {{"carryIn", "any", false}, {"cod", "serviceCODOpenUMLFeV1", false}, {"cud", "any", false},
		{"declaredValue", "serviceDeclaredValueOpenUMLFeV1", false}, {"dedicatedDelivery", "any", false},
		{"documentsInternational", "any", false}, {"dox", "any", false}, {"dpdExpress", "any", false},
		{"dpdPickup", "serviceDpdPickupOpenUMLFeV1", false}, {"duty", "any", false}, {"guarantee", "any", false},
		{"inPers", "any", false}, {"pallet", "any", false}, {"privPers", "any", false}, {"rod", "any", false},
		{"selfCol", "any", false}, {"tires", "any", false}, {"tiresExport", "any", false}},
	"serviceCODOpenUMLFeV1":           {{"amount", "string", false}, {"currency", "serviceCurrencyEnum", false}},
	"serviceDeclaredValueOpenUMLFeV1": {{"amount", "string", false}, {"currency", "serviceCurrencyEnum", false}},
	"serviceDpdPickupOpenUMLFeV1":     {{"pudo", "string", false}},
	"generateSpedLabelsV4": {{"dpdServicesParamsV1", "dpdServicesParamsV1", false}, {"outputDocFormatV1", "outputDocFormatDSPEnumV1", false},
		{"outputDocPageFormatV1", "outputDocPageFormatDSPEnumV1", false}, {"outputLabelType", "outputLabelTypeEnumV1", false},
		{"labelVariant", "string", false}, {"authDataV1", "authDataV1", false}},
	"dpdServicesParamsV1": {{"documentId", "string", false}, {"pickupAddress", "pickupAddressDSPV1", false}, {"policy", "policyDSPEnumV1", false},
		{"session", "sessionDSPV1", false}},
	"sessionDSPV1": {{"packages", "packageDSPV1", true}, {"sessionId", "long", false}, {"sessionType", "sessionTypeDSPEnumV1", false}},
	"packageDSPV1": {{"packageId", "long", false}, {"parcels", "parcelDSPV1", true}, {"reference", "string", false}},
	"parcelDSPV1":  {{"parcelId", "long", false}, {"reference", "string", false}, {"waybill", "string", false}},
	"generateProtocolV2": {{"dpdServicesParamsV1", "dpdServicesParamsV1", false}, {"outputDocFormatV1", "outputDocFormatDSPEnumV1", false},
		{"outputDocPageFormatV1", "outputDocPageFormatDSPEnumV1", false}, {"authDataV1", "authDataV1", false}},
	"pickupAddressDSPV1": {{"address", "string", false}, {"city", "string", false}, {"company", "string", false},
		{"countryCode", "string", false}, {"email", "string", false}, {"fid", "int", false}, {"name", "string", false},
		{"phone", "string", false}, {"postalCode", "string", false}},
	"packagesPickupCallV4": {{"dpdPickupParamsV3", "dpdPickupCallParamsV3", false}, {"authDataV1", "authDataV1", false}},
	"dpdPickupCallParamsV3": {{"checkSum", "int", false}, {"operationType", "pickupCallOperationTypeDPPEnumV1", false},
		{"orderNumber", "string", false}, {"orderType", "pickupCallOrderTypeDPPEnumV1", false},
		{"pickupCallSimplifiedDetails", "pickupCallSimplifiedDetailsDPPV1", false}, {"pickupDate", "string", false},
		{"pickupTimeFrom", "string", false}, {"pickupTimeTo", "string", false}, {"updateMode", "pickupCallUpdateModeDPPEnumV1", false},
		{"waybillsReady", "boolean", false}},
	"pickupCallSimplifiedDetailsDPPV1": {{"packagesParams", "pickupPackagesParamsDPPV1", false}, {"pickupCustomer", "pickupCustomerDPPV1", false},
		{"pickupPayer", "pickupPayerDPPV1", false}, {"pickupSender", "pickupSenderDPPV1", false}},
	"pickupCustomerDPPV1": {{"customerFullName", "string", false}, {"customerName", "string", false}, {"customerPhone", "string", false}},
	"pickupPayerDPPV1":    {{"payerCostCenter", "string", false}, {"payerName", "string", false}, {"payerNumber", "int", false}},
	"pickupSenderDPPV1": {{"senderAddress", "string", false}, {"senderCity", "string", false}, {"senderFullName", "string", false},
		{"senderName", "string", false}, {"senderPhone", "string", false}, {"senderPostalCode", "string", false}},
	"pickupPackagesParamsDPPV1": {{"dox", "boolean", false}, {"doxCount", "int", false}, {"pallet", "boolean", false},
		{"palletMaxHeight", "double", false}, {"palletMaxWeight", "double", false}, {"palletsCount", "int", false},
		{"palletsWeight", "double", false}, {"parcelMaxDepth", "double", false}, {"parcelMaxHeight", "double", false},
		{"parcelMaxWeight", "double", false}, {"parcelMaxWidth", "double", false}, {"parcelsCount", "int", false},
		{"parcelsWeight", "double", false}, {"standardParcel", "boolean", false}},
	"getCourierOrderAvailabilityV1": {{"senderPlaceV1", "senderPlaceV1", false}, {"authDataV1", "authDataV1", false}},
	"senderPlaceV1":                 {{"countryCode", "string", false}, {"zipCode", "string", false}},

	// dpdservices: answers.
	"findPostalCodeV1Response":          {{"return", "findPostalCodeResponseV1", false}},
	"findPostalCodeResponseV1":          {{"status", "string", false}},
	"generatePackagesNumbersV4Response": {{"return", "packagesGenerationResponseV2", false}},
	"packagesGenerationResponseV2": {{"Status", "validationStatusPGREnumV1", false}, {"SessionId", "long", false},
		{"BeginTime", "dateTime", false}, {"EndTime", "dateTime", false}, {"Packages", "packagesPGRV2", false}},
	"packagesPGRV2": {{"Package", "packagePGRV2", true}},
	"packagePGRV2": {{"Status", "validationStatusPGREnumV1", false}, {"PackageId", "long", false}, {"Reference", "string", false},
		{"ValidationDetails", "validationDetails", false}, {"Parcels", "parcelsPGRV2", false}},
	"parcelsPGRV2": {{"Parcel", "parcelPGRV2", true}},
	"parcelPGRV2": {{"Status", "validationStatusPGREnumV1", false}, {"ParcelId", "long", false}, {"Reference", "string", false},
		{"Waybill", "string", false}, {"ValidationDetails", "validationDetails", false}},
	"validationDetails":                     {{"ValidationInfo", "validationInfoPGRV2", true}},
	"validationInfoPGRV2":                   {{"ErrorId", "int", false}, {"ErrorCode", "string", false}, {"FieldNames", "string", false}, {"Info", "string", false}},
	"generateSpedLabelsV4Response":          {{"return", "documentGenerationResponseV1", false}},
	"documentGenerationResponseV1":          {{"documentData", "base64Binary", false}, {"documentId", "string", false}, {"session", "sessionDGRV1", false}},
	"sessionDGRV1":                          {{"packages", "packageDGRV1", true}, {"sessionId", "long", false}, {"statusInfo", "statusInfoDGRV1", false}},
	"packageDGRV1":                          {{"packageId", "long", false}, {"parcels", "parcelDGRV1", true}, {"reference", "string", false}, {"statusInfo", "statusInfoDGRV1", false}},
	"parcelDGRV1":                           {{"parcelId", "long", false}, {"reference", "string", false}, {"statusInfo", "statusInfoDGRV1", false}, {"waybill", "string", false}},
	"statusInfoDGRV1":                       {{"description", "string", false}, {"status", "statusDGREnumV1", false}},
	"DPDServiceException":                   {{"exceptionDate", "dateTime", false}, {"message", "string", false}},
	"generateProtocolV2Response":            {{"return", "documentGenerationResponseV1", false}},
	"packagesPickupCallV4Response":          {{"return", "packagesPickupCallResponseV3", false}},
	"packagesPickupCallResponseV3":          {{"checkSum", "int", false}, {"orderNumber", "string", false}, {"statusInfo", "statusInfoPCRV2", false}},
	"statusInfoPCRV2":                       {{"errorDetails", "errorDetailsPCRV2", true}, {"status", "string", false}},
	"errorDetailsPCRV2":                     {{"code", "string", false}, {"description", "string", false}, {"fields", "string", false}},
	"getCourierOrderAvailabilityV1Response": {{"return", "getCourierOrderAvailabilityResponseV1", false}},
	"getCourierOrderAvailabilityResponseV1": {{"ranges", "courierOrderAvailabilityRangeV1", true}, {"status", "string", false}},
	"courierOrderAvailabilityRangeV1":       {{"offset", "int", false}, {"range", "string", false}},

	// dpdinfoservices (t3ko's Soap/Types; no WSDL of it is at hand).
	"getEventsForWaybillV1": {{"waybill", "string", false}, {"eventsSelectType", "eventsSelectTypeEnum", false},
		{"language", "string", false}, {"authDataV1", "infoAuthDataV1", false}},
	"infoAuthDataV1":                {{"channel", "string", false}, {"login", "string", false}, {"password", "string", false}},
	"getEventsForWaybillV1Response": {{"return", "customerEventsResponseV3", false}},
	"customerEventsResponseV3":      {{"confirmId", "string", false}, {"eventsList", "customerEventV3", true}},
	"customerEventV3": {{"businessCode", "string", false}, {"country", "string", false}, {"depot", "string", false},
		{"depotName", "string", false}, {"description", "string", false}, {"eventDataList", "customerEventDataV3", true},
		{"eventTime", "string", false}, {"objectId", "long", false}, {"packageReference", "string", false},
		{"parcelReference", "string", false}, {"waybill", "string", false}},
	"customerEventDataV3": {{"code", "string", false}, {"description", "string", false}, {"value", "string", false}},
}

// schemaEnums are the enumerations [C].
var schemaEnums = map[string][]string{
	"pkgNumsGenerationPolicyV1":        {"STOP_ON_FIRST_ERROR", "IGNORE_ERRORS", "ALL_OR_NOTHING"},
	"payerTypeEnumOpenUMLFeV1":         {"RECEIVER", "SENDER", "THIRD_PARTY"},
	"serviceCurrencyEnum":              {"PLN", "EUR", "USD", "CHF", "SEK", "NOK", "CZK", "RON", "HUF", "HRK", "BGN", "DKK", "GBP", "RSD", "RUB", "TRY", "UNKNOWN"},
	"outputDocFormatDSPEnumV1":         {"PDF", "TIFF", "PS", "EPL", "ZPL", "XML"},
	"outputDocPageFormatDSPEnumV1":     {"A4", "LBL_PRINTER"},
	"outputLabelTypeEnumV1":            {"BIC3", "EXTENDED"},
	"policyDSPEnumV1":                  {"STOP_ON_FIRST_ERROR", "IGNORE_ERRORS"},
	"sessionTypeDSPEnumV1":             {"DOMESTIC", "INTERNATIONAL", "INTERNATIONAL_RETURN_PUDO"},
	"eventsSelectTypeEnum":             {"ALL", "ONLY_LAST"},
	"pickupCallOperationTypeDPPEnumV1": {"INSERT", "UPDATE", "CANCEL"},
	"pickupCallOrderTypeDPPEnumV1":     {"DOMESTIC", "INTERNATIONAL", "EXPRESS"},
	"pickupCallUpdateModeDPPEnumV1":    {"DONT_CREATE_NEW_IF_CLOSED", "CREATE_NEW_IF_CLOSED"},
	"validationStatusPGREnumV1": {"OK", "UNKNOWN_ERROR", "DB_ERROR", "INCORRECT_DATA", "NOT_PROCESSED", "DUPLICATED_PACKAGE_SEARCH_KEY",
		"DUPLICATED_PARCEL_SEARCH_KEY", "DISALLOWED_FID", "DUPLICATED_WAYBILL", "UNSUPPORTED_LANG_CODE"},
	"statusDGREnumV1": {"OK", "NOT_FOUND", "NOT_PROCESSED", "INCORRECT_PKGS_FOR_SESSION_TYPE", "INCORRECT_PICKUP_ADDRESS_FID",
		"INCORRECT_PICKUP_ADDRESS_NAME", "INCORRECT_PICKUP_ADDRESS_COMPANY", "INCORRECT_PICKUP_ADDRESS_ADDRESS",
		"INCORRECT_PICKUP_ADDRESS_CITY", "INCORRECT_PICKUP_ADDRESS_COUNTRY", "INCORRECT_PICKUP_ADDRESS_POSTAL_CODE",
		"INCORRECT_PICKUP_ADDRESS_EMAIL", "INCORRECT_PICKUP_ADDRESS_PHONE", "PARCEL_LIMIT_EXCEEDED", "ACCESS_DENIED_FOR_FID",
		"UNKNOWN_ERROR", "ALREADY_ADVICED", "ADVICE_ERROR", "DB_ERROR"},
}

// required are the parameters without which a DPD operation cannot run (the
// fake's reading of DPD's business rules, not the schema's minOccurs).
var required = map[string][]string{
	"findPostalCodeV1":              {"postalCodeV1", "authDataV1"},
	"generatePackagesNumbersV4":     {"openUMLFeV3", "pkgNumsGenerationPolicyV1", "authDataV1"},
	"generateSpedLabelsV4":          {"dpdServicesParamsV1", "outputDocFormatV1", "outputDocPageFormatV1", "authDataV1"},
	"getEventsForWaybillV1":         {"waybill", "authDataV1"},
	"packagesPickupCallV4":          {"dpdPickupParamsV3", "authDataV1"},
	"getCourierOrderAvailabilityV1": {"senderPlaceV1", "authDataV1"},
	"generateProtocolV2":            {"dpdServicesParamsV1", "outputDocFormatV1", "outputDocPageFormatV1", "authDataV1"},
}

// checkElement holds n to the complex type typ; path names n in messages.
func checkElement(n *xmlNode, typ, path string) []string {
	var problems []string
	fields, ok := schemaTypes[typ]
	if !ok {
		return []string{path + ": the schema has no type " + typ}
	}
	if len(n.Attrs) > 0 {
		for _, a := range n.Attrs {
			if a.Name.Space != "xmlns" && a.Name.Local != "xmlns" {
				problems = append(problems, fmt.Sprintf("%s: attribute %s is not in the schema", path, a.Name.Local))
			}
		}
	}
	if strings.TrimSpace(n.Text) != "" {
		problems = append(problems, fmt.Sprintf("%s: text in a complex type", path))
	}
	seen := map[string]int{}
	for _, c := range n.Children {
		p := path + "/" + c.Name.Local
		if c.Name.Space != "" {
			problems = append(problems, fmt.Sprintf("%s: qualified (%s); the schema's elements are unqualified", p, c.Name.Space))
		}
		i := slices.IndexFunc(fields, func(f field) bool { return f.name == c.Name.Local })
		if i < 0 {
			problems = append(problems, fmt.Sprintf("%s: %s has no element %s", p, typ, c.Name.Local))
			continue
		}
		f := fields[i]
		if seen[f.name]++; seen[f.name] > 1 && !f.many {
			problems = append(problems, fmt.Sprintf("%s: repeated, the schema allows one", p))
		}
		problems = append(problems, checkValue(c, f.typ, p)...)
	}
	return problems
}

// checkValue holds n to typ, simple or complex.
func checkValue(n *xmlNode, typ, path string) []string {
	v := strings.TrimSpace(n.Text)
	simple := func(ok bool, what string) []string {
		if len(n.Children) > 0 {
			return []string{path + ": elements inside a " + typ}
		}
		if !ok {
			return []string{fmt.Sprintf("%s: %q is not %s", path, v, what)}
		}
		return nil
	}
	switch typ {
	case "any": // a service flag or a type the adapter never sends; its content is not checked
		return nil
	case "string":
		return simple(true, "")
	case "int":
		_, err := strconv.ParseInt(v, 10, 32)
		return simple(err == nil, "an xsd:int")
	case "long":
		_, err := strconv.ParseInt(v, 10, 64)
		return simple(err == nil, "an xsd:long")
	case "dateTime":
		_, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			_, err = time.Parse("2006-01-02T15:04:05.999999999", v)
		}
		return simple(err == nil, "an xsd:dateTime")
	case "base64Binary":
		_, err := base64.StdEncoding.DecodeString(v)
		return simple(err == nil, "xsd:base64Binary")
	case "boolean":
		return simple(v == "true" || v == "false" || v == "1" || v == "0", "an xsd:boolean")
	case "double":
		_, err := strconv.ParseFloat(v, 64)
		return simple(err == nil && !strings.ContainsAny(v, "xX_"), "an xsd:double")
	}
	if values, ok := schemaEnums[typ]; ok {
		return simple(slices.Contains(values, v), "one of "+typ+" "+strings.Join(values, ", "))
	}
	return checkElement(n, typ, path)
}

// checkOperation holds a request body's wrapper to the WSDL (its operation
// and namespace) and the schema, and its required parameters.
func checkOperation(w wsdl, n *xmlNode) []string {
	want, ok := w.inputs[n.Name.Local]
	if !ok {
		return []string{fmt.Sprintf("%s is not an operation of the service", n.Name.Local)}
	}
	if n.Name.Space != want.Space {
		return []string{fmt.Sprintf("%s: namespace %q, the WSDL's is %q", n.Name.Local, n.Name.Space, want.Space)}
	}
	if _, ok := schemaTypes[want.Local]; !ok {
		return []string{fmt.Sprintf("%s: the fake does not play this operation", n.Name.Local)}
	}
	problems := checkElement(n, want.Local, want.Local)
	for _, r := range required[want.Local] {
		if n.child(r) == nil {
			problems = append(problems, fmt.Sprintf("%s/%s is required", want.Local, r))
		}
	}
	return problems
}

// The schema's own test: the wrappers the fake plays are operations of the
// WSDL, and every type the schema names is defined.
func TestSchemaCoversTheWSDLOperations(t *testing.T) {
	w := loadWSDL(t, "testdata/dpd-pl-dpdservices.wsdl")
	if w.targetNS != packageNS {
		t.Errorf("WSDL targetNamespace %q, the adapter sends %q", w.targetNS, packageNS)
	}
	for _, op := range []string{"findPostalCodeV1", "generatePackagesNumbersV4", "generateSpedLabelsV4", "generateProtocolV2",
		"packagesPickupCallV4", "getCourierOrderAvailabilityV1"} {
		if _, ok := w.inputs[op]; !ok {
			t.Errorf("the WSDL has no operation %s", op)
		}
	}
	for op := range w.inputs {
		if strings.Contains(strings.ToLower(op), "cancel") || strings.Contains(strings.ToLower(op), "delete") {
			t.Errorf("the WSDL has %s: CancelShipment should use it", op)
		}
	}
	for typ, fields := range schemaTypes {
		for _, f := range fields {
			switch f.typ {
			case "any", "string", "int", "long", "dateTime", "base64Binary", "boolean", "double":
				continue
			}
			if _, ok := schemaTypes[f.typ]; !ok {
				if _, ok := schemaEnums[f.typ]; !ok {
					t.Errorf("%s.%s: type %s undefined", typ, f.name, f.typ)
				}
			}
		}
	}
}

// The fake refuses what DPD's schema and WSDL would: each body below breaks
// one rule.
func TestSchemaRefusesWhatDPDWould(t *testing.T) {
	w := loadWSDL(t, "testdata/dpd-pl-dpdservices.wsdl")
	const auth = `<authDataV1><login>l</login><masterFid>1495</masterFid><password>p</password></authDataV1>`
	ok := `<d:findPostalCodeV1 xmlns:d="http://dpdservices.dpd.com.pl/"><postalCodeV1><countryCode>PL</countryCode><zipCode>02274</zipCode></postalCodeV1>` + auth + `</d:findPostalCodeV1>`
	cases := map[string]string{
		"unknown element":   `<d:findPostalCodeV1 xmlns:d="http://dpdservices.dpd.com.pl/"><postalCodeV1><zipCode>02274</zipCode><city>W</city></postalCodeV1>` + auth + `</d:findPostalCodeV1>`,
		"repeated element":  `<d:findPostalCodeV1 xmlns:d="http://dpdservices.dpd.com.pl/"><postalCodeV1><zipCode>1</zipCode><zipCode>2</zipCode></postalCodeV1>` + auth + `</d:findPostalCodeV1>`,
		"not an int":        `<d:findPostalCodeV1 xmlns:d="http://dpdservices.dpd.com.pl/"><postalCodeV1/><authDataV1><masterFid>FID</masterFid></authDataV1></d:findPostalCodeV1>`,
		"qualified child":   `<d:findPostalCodeV1 xmlns:d="http://dpdservices.dpd.com.pl/"><d:postalCodeV1/>` + auth + `</d:findPostalCodeV1>`,
		"wrong namespace":   `<findPostalCodeV1 xmlns="http://example.com/"><postalCodeV1/>` + auth + `</findPostalCodeV1>`,
		"unknown operation": `<d:cancelPackageV1 xmlns:d="http://dpdservices.dpd.com.pl/">` + auth + `</d:cancelPackageV1>`,
		"missing authData":  `<d:findPostalCodeV1 xmlns:d="http://dpdservices.dpd.com.pl/"><postalCodeV1/></d:findPostalCodeV1>`,
		"bad enumeration": `<d:generateSpedLabelsV4 xmlns:d="http://dpdservices.dpd.com.pl/"><dpdServicesParamsV1/><outputDocFormatV1>PNG</outputDocFormatV1>` +
			`<outputDocPageFormatV1>LBL_PRINTER</outputDocPageFormatV1>` + auth + `</d:generateSpedLabelsV4>`,
	}
	n, err := parseXML(strings.NewReader(ok))
	if err != nil {
		t.Fatal(err)
	}
	if problems := checkOperation(w, n); len(problems) != 0 {
		t.Errorf("a valid body refused: %v", problems)
	}
	for name, body := range cases {
		n, err := parseXML(strings.NewReader(body))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if problems := checkOperation(w, n); len(problems) == 0 {
			t.Errorf("%s: accepted", name)
		}
	}
}
