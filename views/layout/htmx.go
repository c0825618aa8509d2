package layout

// htmxConfig is htmx's configuration (the htmx-config meta tag). It adds one rule to
// htmx's default response handling: a 422 (a form answered with its errors) or a 413
// (an upload over the size limit) is swapped in like a success, so a form that htmx
// sends shows its errors the way the plain form does. Other 4xx and 5xx stay errors.
// htmx's own indicator styles are off: the Content-Security-Policy refuses inline
// styles, and app.css has the rules.
const htmxConfig = `{"includeIndicatorStyles": false, "responseHandling": [` +
	`{"code": "204", "swap": false}, ` +
	`{"code": "[23]..", "swap": true}, ` +
	`{"code": "413|422", "swap": true}, ` +
	`{"code": "[45]..", "swap": false, "error": true}, ` +
	`{"code": "...", "swap": false}]}`
