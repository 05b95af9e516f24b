#!/usr/bin/env bash
# placeholder until the CLI golden tests land
exit 0
