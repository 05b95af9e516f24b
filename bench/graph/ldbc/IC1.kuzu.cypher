// IC1 in Kuzu 0.11's dialect (IC1.cypher has the description and the parameters): shortestPath() is
// a SHORTEST recursive relationship, whose length() is the path's length; Kuzu's collect() of
// nothing but nulls is null where openCypher's is [], hence the coalesce().
MATCH (p:Person {id: $personId}), (friend:Person {firstName: $firstName})
WHERE p <> friend
MATCH (p)-[e:knows* SHORTEST 1..3]-(friend)
WITH friend, min(length(e)) AS distance
ORDER BY distance ASC, friend.lastName ASC, friend.id ASC
LIMIT 20
MATCH (friend)-[:Person_isLocatedIn]->(friendCity:Place)
OPTIONAL MATCH (friend)-[studyAt:studyAt]->(uni:Organisation {kind: 'University'})
               -[:Organisation_isLocatedIn]->(uniCity:Place {kind: 'City'})
WITH friend, friendCity, distance,
     coalesce(collect(CASE WHEN uni IS NULL THEN null
                  ELSE {name: uni.name, year: studyAt.classYear, place: uniCity.name} END), []) AS universities
OPTIONAL MATCH (friend)-[workAt:workAt]->(company:Organisation {kind: 'Company'})
               -[:Organisation_isLocatedIn]->(companyCountry:Place {kind: 'Country'})
WITH friend, friendCity, distance, universities,
     coalesce(collect(CASE WHEN company IS NULL THEN null
                  ELSE {name: company.name, year: workAt.workFrom, place: companyCountry.name} END), []) AS companies
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
