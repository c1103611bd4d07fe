package validation

import (
	"regexp"
	"strings"

	"buf.build/go/protovalidate"
)

// patternWords says in words what each pattern of the API's rules wants, so that no message
// shows a regular expression. Keys are the patterns as the rules hold them; a test fails when
// a rule's pattern has no words here.
var patternWords = map[string]string{
	`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`: "must be a lower-case DNS label: lower-case letters, digits and '-', " +
		"starting and ending with a letter or digit",
	`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`: "must be " +
		"a Kubernetes qualified name: an optional lower-case DNS prefix and '/', then at most 63 letters, digits, '-', '_' " +
		"or '.', starting and ending with a letter or digit",
	`^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$`: "must be empty or a Kubernetes label value: at most 63 letters, " +
		"digits, '-', '_' or '.', starting and ending with a letter or digit",
	`^[a-zA-Z0-9:\-_]{1,255}$`: "must be 1 to 255 letters, digits, ':', '-' or '_'",
	`^[^,\s]([^,]*[^,\s])?$`:   "must be an application name without commas or surrounding spaces",
	`^\S+$`:                    "must not contain spaces",
	`^(([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)?$`: "must be a duration such as 90s, 10m or 1h30m",
	`^([01][0-9]|2[0-3]):[0-5][0-9]$`:              "must be a time of day HH:MM in 24-hour UTC, e.g. 03:00",
	`^(status\.outputs\.[a-z][a-z0-9_]*)?$`:        "must be status.outputs.<output name>, e.g. status.outputs.cluster_id",
	regionPattern: "must be a region code: 2 to 5 lower-case letters, then a digit or two, e.g. fra1 " +
		"(`clusterplane regions CLOUD` lists them)",
}

// lengthInWords are the patterns whose words say the value's length already (a region code is a
// few letters and a digit or two; a label value at most 63 characters): a value that breaks one
// of them and its field's max_len too is one mistake, said once, in the pattern's words.
var lengthInWords = map[string]bool{
	regionPattern: true,
	`^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$`: true,
	`^[a-zA-Z0-9:\-_]{1,255}$`:                           true,
}

// oneMistakeOnce drops a broken length rule (string.max_len) of a field whose broken pattern's
// words say the length already: region: frankfurt is one mistake, not two errors.
func oneMistakeOnce(violations []Violation, patterns map[string]string) []Violation {
	var out []Violation
	for _, v := range violations {
		if v.RuleID == "string.max_len" && lengthInWords[patterns[v.Field]] {
			continue
		}
		out = append(out, v)
	}
	return out
}

// regionPattern is the rule of every region field: both clouds spell their regions in lower case
// (fra1, nyc3), as pkg/change/cost's RegionName does.
const regionPattern = `^[a-z]{2,5}[0-9]{1,2}$`

var regionCode = regexp.MustCompile(regionPattern)

// hint says what to write instead of a value a rule refused, where the value shows it: a region
// written with capitals (Fra1) is the region in lower case. The lower-case form is quoted only
// when it is a region code, which no token can be.
func hint(v *protovalidate.Violation) string {
	if v.Proto.GetRuleId() != "string.pattern" || v.Proto.GetMessage() != patternPrefix+regionPattern+"`" ||
		!v.FieldValue.IsValid() {
		return ""
	}
	value, ok := v.FieldValue.Interface().(string)
	if !ok {
		return ""
	}
	if lower := strings.ToLower(strings.TrimSpace(value)); lower != value && regionCode.MatchString(lower) {
		return "regions are lower case on both clouds: write " + lower
	}
	return ""
}

// patternPrefix starts protovalidate's message for a broken string.pattern rule.
const patternPrefix = "does not match regex pattern `"

// inWords replaces a message that shows a pattern with the pattern's words.
func inWords(ruleID, message string) string {
	if ruleID != "string.pattern" || !strings.HasPrefix(message, patternPrefix) {
		return message
	}
	pattern := strings.TrimSuffix(strings.TrimPrefix(message, patternPrefix), "`")
	if words, ok := patternWords[pattern]; ok {
		return words
	}
	return "does not have the expected format"
}

// PatternWords returns the words for a rule's pattern, "" when it has none.
func PatternWords(pattern string) string { return patternWords[pattern] }
