
DELETE FROM runs WHERE source = 'paper' AND status = 'recorded';
