// Package templates holds the results site's html/template files and its
// own small stylesheet and script, embedded so the report builds from any
// working directory.
package templates

import "embed"

// FS holds page.html (the layout every page uses), card.html (the task card
// partial) and the assets folder (site.css, site.js).
//
//go:embed *.html assets
var FS embed.FS
