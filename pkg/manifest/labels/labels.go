// Package labels derives the standard labels every resource carries from its manifest's metadata,
// and renders them as cloud tags.
package labels

import (
	"sort"
	"strings"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
)

// Keys of the derived labels.
const (
	ResourceKind = "resource-kind"
	ResourceName = "resource-name"
	ResourceID   = "resource-id"
	Organization = "organization"
	Environment  = "environment"
)

// Standard returns the labels derived from metadata (kind, name, id, org, env; empty ones left
// out) merged with metadata.labels, which win over derived ones with the same key.
func Standard(kind string, md *sharedv1.CloudResourceMetadata) map[string]string {
	out := map[string]string{ResourceKind: kind}
	for key, value := range map[string]string{
		ResourceName: md.GetName(),
		ResourceID:   md.GetId(),
		Organization: md.GetOrg(),
		Environment:  md.GetEnv(),
	} {
		if value != "" {
			out[key] = value
		}
	}
	for key, value := range md.GetLabels() {
		out[key] = value
	}
	return out
}

// Tags renders labels as sorted `key:value` tags followed by extra, without duplicates. Characters
// outside the set both clouds accept in tags (letters, digits, `:`, `-`, `_`) become `-`, so a
// label like `team=platform/core` becomes the tag `team:platform-core`.
func Tags(labels map[string]string, extra []string) []string {
	derived := make([]string, 0, len(labels))
	for key, value := range labels {
		derived = append(derived, sanitize(key)+":"+sanitize(value))
	}
	sort.Strings(derived)
	seen := make(map[string]bool, len(derived)+len(extra))
	out := make([]string, 0, len(derived)+len(extra))
	for _, tag := range append(derived, extra...) {
		if !seen[tag] {
			seen[tag] = true
			out = append(out, tag)
		}
	}
	return out
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == ':', r == '-', r == '_':
			return r
		default:
			return '-'
		}
	}, s)
}

// Managed tells whether a cloud resource's tags carry clusterplane's resource-kind tag: of kind,
// or of any kind when kind is "". A cluster without it was made outside clusterplane.
func Managed(tags []string, kind string) bool {
	for _, t := range tags {
		if k, ok := strings.CutPrefix(t, ResourceKind+":"); ok && (kind == "" || k == kind) {
			return true
		}
	}
	return false
}
