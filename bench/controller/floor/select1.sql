-- floor.sh reference: the cheapest possible transaction (one autocommit SELECT 1).
SELECT 1;
