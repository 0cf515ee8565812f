// Answers (pattern, string, options) cases with the real minimatch 3.
// Usage: node oracle.js cases.json  ->  prints a JSON array: true, false or "error" per case.
'use strict'
const fs = require('fs')
const path = require('path')
const minimatch = require(path.join(__dirname, 'node_modules', 'minimatch'))

const cases = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))
const answers = cases.map(([pattern, string, options]) => {
  try {
    return minimatch(string, pattern, options)
  } catch (e) {
    return 'error'
  }
})
process.stdout.write(JSON.stringify({
  version: require(path.join(__dirname, 'node_modules', 'minimatch', 'package.json')).version,
  braceExpansion: require(path.join(__dirname, 'node_modules', 'brace-expansion', 'package.json')).version,
  answers: answers
}))
