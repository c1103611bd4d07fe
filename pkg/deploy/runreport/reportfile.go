package runreport

import (
	_ "embed"
	"path/filepath"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/atomicwrite"
	"github.com/pkg/errors"
)

// ReportFileFormat is the format --report-file's name asks for by its extension, json or csv;
// any other is an error naming the flag and the file, said before anything runs.
func ReportFileFormat(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".json", ".csv":
		return ext[1:], nil
	case "":
		return "", errors.Errorf("--report-file %s: no extension; name it .json or .csv, the format it is written in", path)
	default:
		return "", errors.Errorf("--report-file %s: %s is not a format the report is written in; name it .json or .csv", path, ext)
	}
}

// WriteReportFile writes a report file whole or not at all (atomicwrite): a reader (CI keeping
// it, a portal) never finds half a report, even when the run is interrupted while writing.
func WriteReportFile(path string, data []byte) error {
	return errors.Wrapf(atomicwrite.File(path, data), "--report-file %s", path)
}

// ReportFileSchema is the JSON Schema of a --report-file written as JSON: an array of one
// object a stack (render.ReportRow).
//
//go:embed reportfile.schema.json
var ReportFileSchema []byte
