// IC1. Transitive friends with a certain name (LDBC SNB Interactive v1, complex read 1).
// Given a start Person, find the Persons with a given first name that the start Person is connected
// to by at most 3 steps over knows (the start Person excluded), with their distance (1..3), the
// Persons' own properties, their city, the universities they studied at (name, class year, city)
// and the companies they work at (name, year they started, country).  Sorted by distance, last
// name, id; the first 20.
// Differences from the specification: the data has no email or language files, so those two
// result columns are left out; a university or company summary is a map {name, year, place}
// (Kuzu's lists hold one type); collect() gives no order, so the test compares those lists sorted.
// params: {"personId": 933, "firstName": "John"}
// params: {"personId": 933, "firstName": "Jun"}
// params: {"personId": 1129, "firstName": "Carlos"}
// params: {"personId": 26388279067534, "firstName": "Rahul"}
// unordered-lists: friendUniversities, friendCompanies
MATCH (p:Person {id: $personId}), (friend:Person {firstName: $firstName})
WHERE p <> friend
MATCH path = shortestPath((p)-[:knows*1..3]-(friend))
WITH friend, min(length(path)) AS distance
ORDER BY distance ASC, friend.lastName ASC, friend.id ASC
LIMIT 20
MATCH (friend)-[:Person_isLocatedIn]->(friendCity:Place)
OPTIONAL MATCH (friend)-[studyAt:studyAt]->(uni:Organisation {kind: 'University'})
               -[:Organisation_isLocatedIn]->(uniCity:Place {kind: 'City'})
WITH friend, friendCity, distance,
     collect(CASE WHEN uni IS NULL THEN null
                  ELSE {name: uni.name, year: studyAt.classYear, place: uniCity.name} END) AS universities
OPTIONAL MATCH (friend)-[workAt:workAt]->(company:Organisation {kind: 'Company'})
               -[:Organisation_isLocatedIn]->(companyCountry:Place {kind: 'Country'})
WITH friend, friendCity, distance, universities,
     collect(CASE WHEN company IS NULL THEN null
                  ELSE {name: company.name, year: workAt.workFrom, place: companyCountry.name} END) AS companies
RETURN
  friend.id AS friendId,
  friend.lastName AS friendLastName,
  distance AS distanceFromPerson,
  friend.birthday AS friendBirthday,
  friend.creationDate AS friendCreationDate,
  friend.gender AS friendGender,
  friend.browserUsed AS friendBrowserUsed,
  friend.locationIP AS friendLocationIp,
  friendCity.name AS friendCityName,
  universities AS friendUniversities,
  companies AS friendCompanies
ORDER BY distanceFromPerson ASC, friendLastName ASC, friendId ASC
LIMIT 20
