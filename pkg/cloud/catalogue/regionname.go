package catalogue

import (
	"errors"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	"google.golang.org/protobuf/proto"
)

// ParseInput is stackinput.Parse, with the catalogue's word on a region the rule refuses: the
// rule (validation) knows no cloud, and the catalogue (pkg/change/cost) sits above the parser, so
// the region that a place's name (amsterdam3, Frankfurt) was meant to be is said here. The
// commands and the service read manifests through it, so that all say the same.
func ParseInput(data []byte, file string, input proto.Message) error {
	err := stackinput.Parse(data, file, input)
	var e *stackinput.Error
	if errors.As(err, &e) {
		regionHints(e, input)
	}
	return err
}

// regionRule is the words of the region fields' pattern, as validation writes them.
var regionRule = validation.PatternWords(`^[a-z]{2,5}[0-9]{1,2}$`)

// regionHints names, on the problem of a region the pattern refused, the cloud in the words'
// `clusterplane regions CLOUD` and the region of its catalogue that the value was meant to be.
func regionHints(e *stackinput.Error, input proto.Message) {
	mc := catalogueOf(input)
	if mc.region == nil {
		return
	}
	for i, p := range e.Problems {
		if p.RuleID != "string.pattern" || p.Message != regionRule || !strings.HasSuffix(p.Path, "spec.region") {
			continue
		}
		e.Problems[i].Message = strings.Replace(p.Message, "regions CLOUD`", "regions "+mc.cloud+"`", 1)
		if p.Hint == "" {
			e.Problems[i].Hint = regionNamed(mc.region.value, mc.facts.Regions())
		}
	}
}

// regionNamed says which of regions a value the region rule refused was meant to be: the region
// written with a dash or a space (ams-3), or by its place's name (amsterdam3, Frankfurt, New York),
// in any case and with a letter off; of a place with several regions, the one whose number the
// value gives, else all of them. "" when the value names none.
func regionNamed(value string, regions []cost.Region) string {
	letters, digits := splitRegion(value)
	var named, numbered []cost.Region
	for _, r := range regions {
		if letters+digits == r.Name {
			return "did you mean " + r.Name + "?"
		}
		place, number := splitRegion(strings.SplitN(r.Where, ",", 2)[0])
		if letters == "" || letters != place && (len(place) < 5 || apikinds.Distance(letters, place) > 1) {
			continue
		}
		named = append(named, r)
		if digits != "" && (digits == number || strings.HasSuffix(r.Name, digits)) {
			numbered = append(numbered, r)
		}
	}
	if len(numbered) > 0 {
		named = numbered
	}
	var said []string
	for _, r := range named {
		said = append(said, r.Name)
	}
	if len(said) == 0 {
		return ""
	}
	return "did you mean " + strings.Join(said, " or ") + "?"
}

// splitRegion is a value's letters and its digits, each in order and in lower case, anything else
// (dashes, spaces, commas) left out: "Amsterdam 3" is "amsterdam" and "3".
func splitRegion(value string) (letters, digits string) {
	var l, d strings.Builder
	for _, c := range strings.ToLower(value) {
		switch {
		case c >= 'a' && c <= 'z':
			l.WriteRune(c)
		case c >= '0' && c <= '9':
			d.WriteRune(c)
		}
	}
	return l.String(), d.String()
}
