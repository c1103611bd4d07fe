package discover

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/manifest/labels"
	"github.com/pkg/errors"
	yaml "go.yaml.in/yaml/v3"
	"google.golang.org/protobuf/encoding/protojson"
)

// manifest is one resource found, before it is rendered.
type manifest struct {
	kind string
	// doc is the whole manifest (apiVersion, kind, metadata, spec) as its JSON is written.
	doc     object
	cloudID string
	// what says what the manifest describes, for its header: "Kubernetes cluster dev-fra1".
	what, cloud, region string
	fileBase            string
	pool                bool
	// sortKey groups a cluster with its pools.
	sortKey string
	// managed says that clusterplane deployed the cluster: it carries the resource-kind tag.
	managed bool
	// notes are extra header lines: what the manifest could not say.
	notes []string
}

// render is the manifest as YAML, under a comment saying where it came from. The comment holds
// no date, so that discovering an unchanged account twice writes the same bytes.
func render(m manifest, o Options) ([]byte, error) {
	// protojson writes the fields in the proto's order and maps sorted; its spacing is random by
	// design, which the YAML re-encoding below drops.
	msg, err := message(o.Kinds, m.kind, m.doc)
	if err != nil {
		return nil, err
	}
	js, err := protojson.MarshalOptions{UseProtoNames: false}.Marshal(msg)
	if err != nil {
		return nil, errors.Wrap(err, "encode "+m.what)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(js, &doc); err != nil {
		return nil, errors.Wrap(err, "encode "+m.what)
	}
	plain(&doc)
	var b bytes.Buffer
	head := "Discovered in " + m.cloud + ", region " + m.region + ": " + m.what + ", id " + m.cloudID + "."
	if o.Command != "" {
		head += " Written by `" + o.Command + "`; it describes the resource as it ran then."
	}
	for _, n := range append([]string{head}, m.notes...) {
		// A comment line ends at a new line, and YAML refuses control characters: a cloud name
		// that holds them is written escaped.
		for _, line := range wrapComment(Printable(n), 98) {
			b.WriteString("# " + line + "\n")
		}
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, errors.Wrap(err, "encode "+m.what)
	}
	if err := enc.Close(); err != nil {
		return nil, errors.Wrap(err, "encode "+m.what)
	}
	return b.Bytes(), nil
}

// mustQuote are strings the project's strict YAML 1.2 reader, or a YAML 1.1 reader, could take
// for something other than a string when written plain.
var mustQuote = regexp.MustCompile(`^([0-9.:+-]|(?i:(y|yes|n|no|on|off|true|false|null|~)$))`)

// plain turns JSON's flow style into block style and quotes only the strings that need it.
func plain(n *yaml.Node) {
	n.Style = 0
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && (mustQuote.MatchString(n.Value) || n.Value == "") {
		n.Style = yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		plain(c)
	}
}

func wrapComment(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

var nameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// metaName is s made a manifest name (a lower-case DNS label of at most 63 characters).
func metaName(s string) string {
	s = strings.ToLower(s)
	var b strings.Builder
	for _, r := range s {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteRune('-')
		}
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > 63 {
		out = strings.TrimRight(out[:63], "-")
	}
	if out == "" {
		out = "unnamed"
	}
	return out
}

// metadata is a resource's manifest metadata. A resource clusterplane deployed carries the tags
// its metadata became (resource-kind:<kind>, resource-name:..., organization:..., ...): its
// metadata is read back from them, so the stack and tags stay what they were. Otherwise the
// name is the cloud's name. It returns the metadata and the tags left once those derived from
// it are taken out.
func metadata(kind, cloudName, cloudID string, tags []string) (*sharedv1.CloudResourceMetadata, []string) {
	md := &sharedv1.CloudResourceMetadata{Name: metaName(cloudName)}
	if labels.Managed(tags, kind) {
		for _, t := range tags {
			key, value, _ := strings.Cut(t, ":")
			switch key {
			case labels.ResourceName:
				if nameRE.MatchString(value) && len(value) <= 63 {
					md.Name = value
				}
			case labels.ResourceID:
				md.Id = value
			case labels.Organization:
				md.Org = value
			case labels.Environment:
				md.Env = value
			}
		}
	}
	md.Annotations = map[string]string{deploytarget.CloudIDAnnotation: cloudID}
	return md, withoutDerived(kind, md, tags)
}

// withoutDerived are tags without those md's standard labels become for kind, and without a
// stack's mark (stackmark): clusterplane writes both itself, and neither is the user's.
func withoutDerived(kind string, md *sharedv1.CloudResourceMetadata, tags []string) []string {
	derived := labels.Tags(labels.Standard(kind, md), nil)
	var out []string
	for _, t := range tags {
		if !slices.Contains(derived, t) && !stackmark.IsMarkTag(t) {
			out = append(out, t)
		}
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }
