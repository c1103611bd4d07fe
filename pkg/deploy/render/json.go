package render

import (
	"bytes"
	"encoding/json"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
)

// JSON is the report as -o json prints it, two spaces of indent, with redact applied to the
// encoded document (the run's secrets out of every value); as YAML when asYAML (-o yaml). It is
// here rather than in the command so that the golden tests read the very bytes a user gets.
func JSON(report runreport.Report, asYAML bool, redact func([]byte) []byte) ([]byte, error) {
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetIndent("", "  ")
	if err := enc.Encode(report); err != nil {
		return nil, errors.Wrap(err, "write the report")
	}
	return AsYAML(redact(out.Bytes()), asYAML)
}
