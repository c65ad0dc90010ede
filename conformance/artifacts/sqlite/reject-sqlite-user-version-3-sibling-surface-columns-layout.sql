PRAGMA user_version = 3;
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE sessions (
  id             TEXT PRIMARY KEY,
  version        INTEGER NOT NULL,
  created_at     INTEGER NOT NULL,
  cwd            TEXT,
  parent_session TEXT
) STRICT;
INSERT INTO sessions VALUES('v3-sibling',0,1767225600000,'/w',NULL);
CREATE TABLE events (
  session_id        TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq               INTEGER NOT NULL,
  type              TEXT NOT NULL,
  time              INTEGER NOT NULL,
  data              TEXT NOT NULL,
  source_event_seqs TEXT,
  surface_op        TEXT,
  PRIMARY KEY (session_id, seq)
) STRICT;
INSERT INTO events VALUES('v3-sibling',0,'turn/start',1767225646500,'{"turn":1,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('v3-sibling',1,'user/message',1767225647400,'{"content":[{"type":"text","text":"Say hello."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('v3-sibling',2,'step/start',1767225647420,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('v3-sibling',3,'assistant/chunk',1767225647462,'{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('v3-sibling',4,'assistant/chunk',1767225647504,'{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"Hello!"}}',NULL,NULL);
INSERT INTO events VALUES('v3-sibling',5,'assistant/chunk',1767225647546,'{"turn":1,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"Hello!"}}}',NULL,NULL);
INSERT INTO events VALUES('v3-sibling',6,'assistant/chunk',1767225647588,'{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('v3-sibling',7,'assistant/message',1767225647618,'{"turn":1,"step":1,"content":[{"type":"text","text":"Hello!"}]}','[3,4,5,6]','"append"');
INSERT INTO events VALUES('v3-sibling',8,'step/end',1767225647633,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('v3-sibling',9,'turn/end',1767225647668,'{"turn":1,"reason":{"kind":"completed"}}',NULL,NULL);
INSERT INTO events VALUES('v3-sibling',10,'turn/start',1767225692668,'{"turn":2,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('v3-sibling',11,'user/message',1767225693568,'{"content":[{"type":"text","text":"Say goodbye."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('v3-sibling',12,'step/start',1767225693588,'{"turn":2,"step":1}',NULL,NULL);
INSERT INTO events VALUES('v3-sibling',13,'assistant/chunk',1767225693630,'{"turn":2,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('v3-sibling',14,'assistant/chunk',1767225693672,'{"turn":2,"step":1,"chunk":{"type":"text-delta","index":0,"text":"Goodbye!"}}',NULL,NULL);
INSERT INTO events VALUES('v3-sibling',15,'assistant/chunk',1767225693714,'{"turn":2,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"Goodbye!"}}}',NULL,NULL);
INSERT INTO events VALUES('v3-sibling',16,'assistant/chunk',1767225693756,'{"turn":2,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('v3-sibling',17,'assistant/message',1767225693786,'{"turn":2,"step":1,"content":[{"type":"text","text":"Goodbye!"}]}','[13,14,15,16]','"append"');
INSERT INTO events VALUES('v3-sibling',18,'step/end',1767225693801,'{"turn":2,"step":1}',NULL,NULL);
INSERT INTO events VALUES('v3-sibling',19,'turn/end',1767225693836,'{"turn":2,"reason":{"kind":"completed"}}',NULL,NULL);
COMMIT;
