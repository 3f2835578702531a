// Package echarts embeds the vendored ECharts library (version 5.4.3, from
// the npm registry) so the results site can ship it beside its pages.
package echarts

import _ "embed"

// Version is the vendored ECharts version.
const Version = "5.4.3"

// MinJS is the minified ECharts bundle, dist/echarts.min.js of the npm package.
//
//go:embed echarts.min.js
var MinJS []byte
