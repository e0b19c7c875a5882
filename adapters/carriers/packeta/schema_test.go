package packeta

// A strict schema of the Packeta API's XML, written for the fake from
// Packeta's SOAP WSDL (the copy Packeta's WooCommerce plugin shipped as
// config/packetery-soap-bugfix.wsdl, github.com/Zasilkovna/WooCommerce
// commit 761642f4; the REST interface takes and answers the same structures
// [V: zasilkovna.cz/popis-api]). The WSDL itself is not copied here (it is
// not part of the shared vendor material); every type below names the WSDL
// type it transcribes. The fake checks every request the adapter sends AND
// every answer it gives against these types: an element the type does not
// name is refused, a required one missing is refused, as are lengths,
// decimals, numbers and patterns the WSDL's simple types refuse.
//
// One reading of the WSDL is ours: an element declared nillable="true"
// without minOccurs is optional here (the REST interface has no xsi:nil, and
// Packeta's reference marks those attributes not required); an element that
// is neither nillable nor minOccurs="0" is required.

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// node is an XML element as the fake reads and writes it.
type node struct {
	name string
	text string
	kids []*node
}

func el(name string, kids ...*node) *node { return &node{name: name, kids: kids} }
func tx(name, text string) *node          { return &node{name: name, text: text} }

// kid is the first child named name, or nil.
func (n *node) kid(name string) *node {
	for _, k := range n.kids {
		if k.name == name {
			return k
		}
	}
	return nil
}

// value is the text of the child named name, "" when absent.
func (n *node) value(name string) string {
	if k := n.kid(name); k != nil {
		return k.text
	}
	return ""
}

// parseXML reads a document into nodes, refusing attributes and namespaces
// (the REST interface uses neither).
func parseXML(doc []byte) (*node, error) {
	d := xml.NewDecoder(bytes.NewReader(doc))
	var stack []*node
	var root *node
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space != "" || len(t.Attr) > 0 {
				return nil, fmt.Errorf("element %s has a namespace or attributes", t.Name.Local)
			}
			n := &node{name: t.Name.Local}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.kids = append(p.kids, n)
			} else if root != nil {
				return nil, fmt.Errorf("two root elements")
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(t)
			}
		}
	}
	if root == nil {
		return nil, fmt.Errorf("no root element")
	}
	return root, nil
}

// write serializes n (text escaped).
func (n *node) write(b *bytes.Buffer) {
	b.WriteString("<" + n.name + ">")
	if len(n.kids) == 0 {
		_ = xml.EscapeText(b, []byte(n.text))
	}
	for _, k := range n.kids {
		k.write(b)
	}
	b.WriteString("</" + n.name + ">")
}

// xsdType is one WSDL type: a simple type (check), an xsd:all or an
// xsd:sequence of elements, or a complex type the fake does not model
// (unmodelled: the adapter never sends it, so sending it is a test failure).
type xsdType struct {
	check      func(string) error
	all, seq   []xsdElem
	unmodelled bool
}

type xsdElem struct {
	name, typ string
	min, max  int // max -1: unbounded
}

func req(name, typ string) xsdElem  { return xsdElem{name, typ, 1, 1} }
func opt(name, typ string) xsdElem  { return xsdElem{name, typ, 0, 1} }
func many(name, typ string) xsdElem { return xsdElem{name, typ, 1, -1} }

func maxLen(n int) func(string) error {
	return func(v string) error {
		if utf8.RuneCountInString(v) > n {
			return fmt.Errorf("longer than %d characters", n)
		}
		return nil
	}
}

func exactLen(n int) func(string) error {
	return func(v string) error {
		if utf8.RuneCountInString(v) != n {
			return fmt.Errorf("not %d characters", n)
		}
		return nil
	}
}

// decimalOf is an xsd:decimal with at most digits fraction digits.
func decimalOf(digits int) func(string) error {
	re := regexp.MustCompile(`^[+-]?(\d+(\.\d*)?|\.\d+)$`)
	return func(v string) error {
		if !re.MatchString(v) {
			return fmt.Errorf("not a decimal")
		}
		if _, frac, ok := strings.Cut(v, "."); ok && len(strings.TrimRight(frac, "0")) > digits {
			return fmt.Errorf("more than %d fraction digits", digits)
		}
		return nil
	}
}

func matches(pattern string) func(string) error {
	re := regexp.MustCompile(`^(?:` + pattern + `)$`)
	return func(v string) error {
		if !re.MatchString(v) {
			return fmt.Errorf("does not match %s", pattern)
		}
		return nil
	}
}

func unsignedInt(v string) error {
	if _, err := strconv.ParseUint(v, 10, 32); err != nil {
		return fmt.Errorf("not an unsignedInt")
	}
	return nil
}

func base64Binary(v string) error {
	if _, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(v), "")); err != nil {
		return fmt.Errorf("not base64")
	}
	return nil
}

// wsdlTypes are the WSDL's types the methods used reach, by their WSDL
// names (anonymous inner types named Outer.element).
var wsdlTypes = map[string]xsdType{
	"string":       {check: func(string) error { return nil }},
	"string2":      {check: exactLen(2)},
	"string16":     {check: maxLen(16)},
	"string24":     {check: maxLen(24)},
	"string32":     {check: maxLen(32)},
	"string64":     {check: maxLen(64)},
	"email":        {check: matches(`|.*@.*\..*`)},
	"phone":        {check: maxLen(20)},
	"money":        {check: decimalOf(2)},
	"weight":       {check: decimalOf(3)},
	"zip":          {check: maxLen(255)},
	"currency":     {check: exactLen(3)},
	"unsignedInt":  {check: unsignedInt},
	"boolean":      {check: matches(`true|false|1|0`)},
	"date":         {check: matches(`\d{4}-\d{2}-\d{2}`)},
	"dateTime":     {check: matches(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?`)},
	"base64Binary": {check: base64Binary},

	"PacketAttributes": {all: []xsdElem{
		opt("id", "string"), opt("affiliateId", "string16"), req("number", "string24"),
		req("name", "string32"), req("surname", "string32"), opt("company", "string32"),
		opt("email", "email"), opt("phone", "phone"), req("addressId", "unsignedInt"),
		opt("cod", "money"), opt("currency", "currency"), req("value", "money"), req("weight", "weight"),
		opt("eshop", "string64"), opt("adultContent", "unsignedInt"), opt("deliverOn", "date"),
		opt("note", "string"), opt("street", "string64"), opt("houseNumber", "string16"),
		opt("city", "string32"), opt("province", "string32"), opt("zip", "zip"),
		opt("dispatchOrder", "DispatchOrder"), opt("customerBarcode", "string32"),
		opt("carrierPickupPoint", "string64"), opt("carrierService", "string"),
		opt("customsDeclaration", "CustomsDeclaration"), opt("size", "Size"),
		opt("attributes", "AttributeCollection"), opt("items", "ItemCollection"),
		opt("security", "Security"), opt("services", "Services"),
	}},
	"Size":                {seq: []xsdElem{req("length", "unsignedInt"), req("width", "unsignedInt"), req("height", "unsignedInt")}},
	"DispatchOrder":       {unmodelled: true},
	"CustomsDeclaration":  {unmodelled: true},
	"AttributeCollection": {unmodelled: true},
	"ItemCollection":      {unmodelled: true},
	"Security":            {unmodelled: true},
	"Services":            {unmodelled: true},

	"PacketIdDetail": {seq: []xsdElem{req("id", "string"), req("barcode", "string"), req("barcodeText", "string")}},
	"StatusRecord": {seq: []xsdElem{
		req("dateTime", "dateTime"), req("statusCode", "unsignedInt"), req("codeText", "string"),
		req("statusText", "string"), req("branchId", "unsignedInt"), req("destinationBranchId", "unsignedInt"),
		req("externalTrackingCode", "string"),
	}},
	"CurrentStatusRecord": {seq: []xsdElem{
		req("dateTime", "dateTime"), req("statusCode", "unsignedInt"), req("codeText", "string"),
		req("statusText", "string"), req("branchId", "unsignedInt"), req("destinationBranchId", "unsignedInt"),
		req("externalTrackingCode", "string"), req("isReturning", "boolean"), req("storedUntil", "string"),
		req("carrierId", "string"), req("carrierName", "string"),
	}},
	"StatusRecords":                    {seq: []xsdElem{many("record", "StatusRecord")}},
	"SenderGetReturnRoutingResult":     {seq: []xsdElem{many("routingSegment", "string")}},
	"PacketAttributesFault":            {all: []xsdElem{req("attributes", "PacketAttributesFault.attributes")}},
	"PacketAttributesFault.attributes": {seq: []xsdElem{many("fault", "AttributeFault")}},
	"AttributeFault":                   {all: []xsdElem{req("name", "string"), req("fault", "string"), opt("field", "string")}},
	"empty":                            {seq: nil},
}

// wsdlMethod is one operation: its input message's parts (in order), its
// output's result type ("" = no result part) and the faults it declares.
type wsdlMethod struct {
	parts  []xsdElem
	result string
	faults []string
}

var wsdlMethods = map[string]wsdlMethod{
	"createPacket": {
		parts:  []xsdElem{req("apiPassword", "string"), req("attributes", "PacketAttributes")},
		result: "PacketIdDetail",
		faults: []string{"IncorrectApiPasswordFault", "PacketAttributesFault", "DispatchOrderNotAllowedFault", "DispatchOrderInvalidPdfFault", "DispatchOrderUnknownCodeFault"},
	},
	"cancelPacket": {
		parts:  []xsdElem{req("apiPassword", "string"), req("packetId", "string")},
		faults: []string{"IncorrectApiPasswordFault", "PacketIdFault", "CancelNotAllowedFault"},
	},
	"packetStatus": {
		parts:  []xsdElem{req("apiPassword", "string"), req("packetId", "string")},
		result: "CurrentStatusRecord",
		faults: []string{"IncorrectApiPasswordFault", "PacketIdFault"},
	},
	"packetTracking": {
		parts:  []xsdElem{req("apiPassword", "string"), req("packetId", "string")},
		result: "StatusRecords",
		faults: []string{"IncorrectApiPasswordFault", "PacketIdFault"},
	},
	"packetLabelPdf": {
		parts:  []xsdElem{req("apiPassword", "string"), req("packetId", "string"), req("format", "string"), req("offset", "unsignedInt")},
		result: "base64Binary",
		faults: []string{"IncorrectApiPasswordFault", "PacketIdFault", "UnknownLabelFormatFault"},
	},
	"packetLabelZpl": {
		parts:  []xsdElem{req("apiPassword", "string"), req("packetId", "string"), req("dpi", "unsignedInt")},
		result: "string",
		faults: []string{"IncorrectApiPasswordFault", "PacketIdFault", "UnknownLabelFormatFault"},
	},
	"senderGetReturnRouting": {
		parts:  []xsdElem{req("apiPassword", "string"), req("sender", "string64")},
		result: "SenderGetReturnRoutingResult",
		faults: []string{"IncorrectApiPasswordFault", "SenderNotExists"},
	},
}

// validate checks n against the WSDL type typ, returning every problem
// with the element's path.
func validate(n *node, typ, path string) []string {
	t, ok := wsdlTypes[typ]
	if !ok {
		return []string{path + ": the schema has no type " + typ}
	}
	switch {
	case t.unmodelled:
		return []string{path + ": " + typ + " is not modelled by the fake; the adapter sends none"}
	case t.check != nil:
		if len(n.kids) > 0 {
			return []string{path + ": a " + typ + " has no child elements"}
		}
		if err := t.check(n.text); err != nil {
			return []string{fmt.Sprintf("%s: %q is no %s: %v", path, n.text, typ, err)}
		}
		return nil
	}
	if strings.TrimSpace(n.text) != "" {
		return []string{path + ": text in a structure"}
	}
	if t.all != nil {
		return validateAll(n, t.all, path)
	}
	return validateSeq(n, t.seq, path)
}

func validateAll(n *node, elems []xsdElem, path string) []string {
	var out []string
	seen := map[string]int{}
	byName := map[string]xsdElem{}
	for _, e := range elems {
		byName[e.name] = e
	}
	for _, k := range n.kids {
		e, ok := byName[k.name]
		if !ok {
			out = append(out, path+"/"+k.name+": not an element of this type")
			continue
		}
		seen[k.name]++
		if seen[k.name] == 2 {
			out = append(out, path+"/"+k.name+": more than once")
		}
		out = append(out, validate(k, e.typ, path+"/"+k.name)...)
	}
	for _, e := range elems {
		if e.min > 0 && seen[e.name] == 0 {
			out = append(out, path+"/"+e.name+": required, missing")
		}
	}
	return out
}

func validateSeq(n *node, elems []xsdElem, path string) []string {
	var out []string
	i := 0
	for _, e := range elems {
		count := 0
		for i < len(n.kids) && n.kids[i].name == e.name && (e.max < 0 || count < e.max) {
			out = append(out, validate(n.kids[i], e.typ, fmt.Sprintf("%s/%s", path, e.name))...)
			count++
			i++
		}
		if count < e.min {
			out = append(out, path+"/"+e.name+": required, missing or out of order")
		}
	}
	for ; i < len(n.kids); i++ {
		out = append(out, path+"/"+n.kids[i].name+": not expected here")
	}
	return out
}
