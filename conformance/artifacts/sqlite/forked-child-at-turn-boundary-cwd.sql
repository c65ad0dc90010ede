PRAGMA user_version = 4;
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE sessions (
      id             TEXT PRIMARY KEY,
      version        INTEGER NOT NULL,
      created_at     INTEGER NOT NULL,
      cwd            TEXT,
      parent_session TEXT,
      seed_length    INTEGER
    ) STRICT
  ;
INSERT INTO sessions VALUES('parent-session-7-fork-1',0,1767225600000,'/srv/repo','parent-session-7',42);
CREATE TABLE events (
      session_id        TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      seq               INTEGER NOT NULL,
      type              TEXT NOT NULL,
      time              INTEGER NOT NULL,
      data              TEXT NOT NULL,
      source_event_seqs TEXT,
      surface_op        TEXT,
      PRIMARY KEY (session_id, seq)
    ) STRICT
  ;
INSERT INTO events VALUES('parent-session-7-fork-1',0,'turn/start',1767225646500,'{"turn":1,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',1,'user/message',1767225647400,'{"content":[{"type":"text","text":"Initialize a git repo."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('parent-session-7-fork-1',2,'step/start',1767225647420,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',3,'assistant/chunk',1767225647462,'{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',4,'assistant/chunk',1767225647504,'{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"g1","name":"bash","argumentsDelta":"{\"command\":\"git "}}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',5,'assistant/chunk',1767225647546,'{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"g1","argumentsDelta":"init\"}"}}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',6,'assistant/chunk',1767225647588,'{"turn":1,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"tool-call","id":"g1","name":"bash","arguments":"{\"command\":\"git init\"}"}}}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',7,'assistant/chunk',1767225647630,'{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"tool-calls"}}}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',8,'assistant/message',1767225647660,'{"turn":1,"step":1,"content":[{"type":"tool-call","id":"g1","name":"bash","arguments":"{\"command\":\"git init\"}"}]}','[3,4,5,6,7]','"append"');
INSERT INTO events VALUES('parent-session-7-fork-1',9,'tool/call',1767225647670,'{"turn":1,"step":1,"callId":"g1","name":"bash","arguments":"{\"command\":\"git init\"}"}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',10,'tool/result',1767225648310,'{"turn":1,"step":1,"callId":"g1","content":[{"type":"text","text":"Initialized empty Git repository in /srv/repo/.git/"}],"isError":false}','[9]','"append"');
INSERT INTO events VALUES('parent-session-7-fork-1',11,'step/end',1767225648325,'{"turn":1,"step":1}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',12,'step/start',1767225648345,'{"turn":1,"step":2}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',13,'assistant/chunk',1767225648387,'{"turn":1,"step":2,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',14,'assistant/chunk',1767225648429,'{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"Done "}}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',15,'assistant/chunk',1767225648471,'{"turn":1,"step":2,"chunk":{"type":"text-delta","index":0,"text":"(1)."}}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',16,'assistant/chunk',1767225648513,'{"turn":1,"step":2,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"Done (1)."}}}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',17,'assistant/chunk',1767225648555,'{"turn":1,"step":2,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',18,'assistant/message',1767225648585,'{"turn":1,"step":2,"content":[{"type":"text","text":"Done (1)."}]}','[13,14,15,16,17]','"append"');
INSERT INTO events VALUES('parent-session-7-fork-1',19,'step/end',1767225648600,'{"turn":1,"step":2}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',20,'turn/end',1767225648635,'{"turn":1,"reason":{"kind":"completed"}}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',21,'turn/start',1767225693635,'{"turn":2,"trigger":{"kind":"message","source":{"kind":"user"}}}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',22,'user/message',1767225694535,'{"content":[{"type":"text","text":"Add a .gitignore for Python."}],"source":{"kind":"user"}}',NULL,'"append"');
INSERT INTO events VALUES('parent-session-7-fork-1',23,'step/start',1767225694555,'{"turn":2,"step":1}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',24,'assistant/chunk',1767225694597,'{"turn":2,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"tool-call"}}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',25,'assistant/chunk',1767225694639,'{"turn":2,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"g2","name":"bash","argumentsDelta":"{\"command\":\"printf \\\"__pycache__/\\\\n\\\" "}}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',26,'assistant/chunk',1767225694681,'{"turn":2,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"g2","argumentsDelta":"> .gitignore\"}"}}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',27,'assistant/chunk',1767225694723,'{"turn":2,"step":1,"chunk":{"type":"block-end","index":0,"block":{"type":"tool-call","id":"g2","name":"bash","arguments":"{\"command\":\"printf \\\"__pycache__/\\\\n\\\" > .gitignore\"}"}}}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',28,'assistant/chunk',1767225694765,'{"turn":2,"step":1,"chunk":{"type":"finish","reason":{"kind":"tool-calls"}}}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',29,'assistant/message',1767225694795,'{"turn":2,"step":1,"content":[{"type":"tool-call","id":"g2","name":"bash","arguments":"{\"command\":\"printf \\\"__pycache__/\\\\n\\\" > .gitignore\"}"}]}','[24,25,26,27,28]','"append"');
INSERT INTO events VALUES('parent-session-7-fork-1',30,'tool/call',1767225694805,'{"turn":2,"step":1,"callId":"g2","name":"bash","arguments":"{\"command\":\"printf \\\"__pycache__/\\\\n\\\" > .gitignore\"}"}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',31,'tool/result',1767225695445,'{"turn":2,"step":1,"callId":"g2","content":[{"type":"text","text":""}],"isError":false}','[30]','"append"');
INSERT INTO events VALUES('parent-session-7-fork-1',32,'step/end',1767225695460,'{"turn":2,"step":1}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',33,'step/start',1767225695480,'{"turn":2,"step":2}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',34,'assistant/chunk',1767225695522,'{"turn":2,"step":2,"chunk":{"type":"block-start","index":0,"blockType":"text"}}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',35,'assistant/chunk',1767225695564,'{"turn":2,"step":2,"chunk":{"type":"text-delta","index":0,"text":"Done "}}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',36,'assistant/chunk',1767225695606,'{"turn":2,"step":2,"chunk":{"type":"text-delta","index":0,"text":"(2)."}}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',37,'assistant/chunk',1767225695648,'{"turn":2,"step":2,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"Done (2)."}}}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',38,'assistant/chunk',1767225695690,'{"turn":2,"step":2,"chunk":{"type":"finish","reason":{"kind":"stop"}}}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',39,'assistant/message',1767225695720,'{"turn":2,"step":2,"content":[{"type":"text","text":"Done (2)."}]}','[34,35,36,37,38]','"append"');
INSERT INTO events VALUES('parent-session-7-fork-1',40,'step/end',1767225695735,'{"turn":2,"step":2}',NULL,NULL);
INSERT INTO events VALUES('parent-session-7-fork-1',41,'turn/end',1767225695770,'{"turn":2,"reason":{"kind":"completed"}}',NULL,NULL);
COMMIT;
