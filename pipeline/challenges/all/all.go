// Package all imports every challenge package so that each registers itself.
package all

import (
	_ "github.com/rexmle/rexmle/pipeline/challenges/isles22"
)
