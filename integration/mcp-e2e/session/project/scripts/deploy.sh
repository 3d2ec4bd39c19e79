set -eu
GOOS=linux go build -o dist/inventory .
scp dist/inventory deploy@inventory.internal:/srv/inventory/
ssh deploy@inventory.internal systemctl restart inventory
