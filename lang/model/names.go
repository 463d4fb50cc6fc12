package model

import (
	"fmt"
	"strings"
)

// maxListedNames is how many names an error lists before "and N more".
const maxListedNames = 8

// NameList joins names with commas for a message, listing the first few and
// then how many more there are, so a model with thousands of parameters
// does not put them all on one line.
func NameList(names []string) string {
	if len(names) <= maxListedNames {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxListedNames], ", "), len(names)-maxListedNames)
}
