// Package partgone is the refusal of a cluster whose part (a DigitalOcean cluster's default node
// pool) was deleted in the cloud, or lost the mark the provider finds it by, outside clusterplane.
// A provider whose read finds such a part only by its mark keeps the one its state recorded when
// none carries the mark, so the engine sees no change, and an up that changes the part would
// write to one that is gone. The kind's module, which lists the cloud itself, refuses with an
// Error; the commands read it back from the engine's words (Read) and take it as the cloud's
// change it is. The words name no cloud of their own: the module gives the cloud, the field and
// the mark.
package partgone

import (
	"fmt"
	"regexp"
)

// Error: Cloud lists no Part of cluster Cluster carrying Mark, the manifest's Field.
type Error struct {
	// Cloud is the cloud's name as the docs write it; Field the manifest's path of the part;
	// Part what it is ("pool"); Cluster the cluster's name; Mark the tag the provider finds the
	// part by.
	Cloud, Field, Part, Cluster, Mark string
}

func (e *Error) Error() string { return e.Field + ": " + e.Reason() }

// Reason is the error's words after its field.
func (e *Error) Reason() string {
	return fmt.Sprintf("%s lists no %s of cluster %s tagged %s: it was deleted, or the tag removed, outside clusterplane, "+
		"and no up can deploy the %s the stack recorded. Tag the %s that is to take its place with %s (or make one), then run drift",
		e.Cloud, e.Part, e.Cluster, e.Mark, e.Part, e.Part, e.Mark)
}

// said matches an Error's words wherever the engine quotes them: its field, cloud, part,
// cluster and mark, up to the end of its last sentence.
var said = regexp.MustCompile(`(spec\.[A-Za-z.]+): ([A-Za-z]+) lists no ([a-z ]+) of cluster (\S+) tagged (\S+): it was deleted, ` +
	`or the tag removed, outside clusterplane, and no up can deploy the ([a-z ]+) the stack recorded\. Tag the ([a-z ]+) that is ` +
	`to take its place with (\S+) \(or make one\), then run drift`)

// Read finds an Error in text (what the engine said of a failed preview or up); nil when there
// is none, or when its words do not agree with themselves.
func Read(text string) *Error {
	m := said.FindStringSubmatch(text)
	if m == nil || m[3] != m[6] || m[3] != m[7] || m[5] != m[8] {
		return nil
	}
	return &Error{Field: m[1], Cloud: m[2], Part: m[3], Cluster: m[4], Mark: m[5]}
}
