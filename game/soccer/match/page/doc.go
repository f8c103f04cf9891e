// Package page shows a live soccer match (package game/soccer/match) on
// tether demo's web page (package web): the server's truth, every bot's
// newest frame with its figures over the last second, and a person's keys
// steering the first bot's player; and, for a dedicated server's page
// (tether serve -http), its match's truth alone (Publish). It is apart from package match because
// the browser's client builds match to WebAssembly, and the page's server
// side is not for the browser.
package page
