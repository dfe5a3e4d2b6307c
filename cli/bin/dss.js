#!/usr/bin/env node
// The dss command: the built CLI (npm ci builds it; `npm run build -w @dss/cli` again after a change).
import "../dist/main.js";
